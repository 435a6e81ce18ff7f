/**
 * The Docker image without Docker (these machines have none): a folder that
 * holds what the Dockerfile's runtime stage holds, installed by the same
 * commands. The stage is read from the Dockerfile itself, so that the smoke
 * follows the image when the Dockerfile changes, and an instruction it
 * cannot reproduce fails it instead of being skipped.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

export interface Instruction {
  keyword: string;
  /** The rest of the instruction, continuation lines joined. */
  text: string;
}

export interface Stage {
  name: string;
  instructions: Instruction[];
}

/** The stages of a Dockerfile, with their instructions (comments and line continuations removed). */
export function stagesOf(dockerfile: string): Stage[] {
  const logicalLines = dockerfile
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const stages: Stage[] = [];
  for (const line of logicalLines) {
    const [, keyword = '', text = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') {
      stages.push({ name: /\sAS\s+(\S+)$/i.exec(text)?.[1] ?? String(stages.length), instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile: ${keyword} before the first FROM`);
    stage.instructions.push({ keyword: keyword.toUpperCase(), text });
  }
  return stages;
}

/**
 * Commands of the image's RUN lines that a folder on a developer's machine
 * must not run: `npm cache clean --force` keeps the image small, and here it
 * would empty the cache every later `npm ci` of this machine reads.
 */
const notOnThisMachine = [/^npm cache clean\b/];

/** What the runtime stage sets up, as a folder `tally` can run from. */
export interface Runtime {
  root: string;
  /** ENV of the stage. */
  env: Record<string, string>;
  /** ENTRYPOINT of the stage: `node`, its flags and the script. */
  entrypoint: string[];
  /** CMD of the stage: the arguments `docker run` gives when it is given none. */
  cmd: string[];
  /** USER of the stage, when it names one: who runs `tally`, owning none of the files but `userOwns`. */
  user: string | undefined;
  /** What the stage's `chown <USER>` gave that user, relative to `root` (not done here: the user is the image's). */
  userOwns: string[];
}

const run = promisify(execFile);

/**
 * The build stage's files in `root`, as its COPY instructions put them in the image's build stage (the
 * checkout's node_modules linked in place of its `npm ci`), for `npm run build` to run there: its
 * `npm run generate` then writes into `root`, not into the checkout, which the tests that may run meanwhile
 * read.
 */
export function copyBuildStage({ dockerfile, checkout, root }: { dockerfile: string; checkout: string; root: string }): void {
  const stage = stagesOf(fs.readFileSync(dockerfile, 'utf8')).find((candidate) => candidate.name === 'build');
  if (!stage) throw new Error(`${dockerfile} has no build stage`);
  // What `docker build` leaves out of the context (plain paths, as .dockerignore has them): src/generated among them.
  const dockerignore = path.join(checkout, '.dockerignore');
  const left = fs.existsSync(dockerignore)
    ? fs
        .readFileSync(dockerignore, 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('#'))
    : [];
  if (left.some((line) => /[*?![]/.test(line))) throw new Error('the smoke knows plain paths in .dockerignore only');
  const ignored = (file: string): boolean => left.some((line) => file === line || file.startsWith(`${line}/`));
  fs.mkdirSync(root, { recursive: true });
  let workdir = '/';
  for (const { keyword, text } of stage.instructions) {
    if (keyword === 'WORKDIR') workdir = text;
    if (keyword !== 'COPY') continue;
    const paths = text.split(/\s+/).filter((word) => !word.startsWith('--'));
    if (text.includes('--from=')) throw new Error(`the smoke cannot reproduce COPY ${text} in the build stage`);
    const destination = path.posix.resolve(workdir, paths.at(-1) ?? '');
    if (destination !== workdir && !destination.startsWith(`${workdir}/`)) throw new Error(`the smoke reproduces ${workdir} only, not ${destination}`);
    for (const source of paths.slice(0, -1)) {
      const target = path.join(root, path.relative(workdir, destination), (paths.at(-1) ?? '').endsWith('/') ? path.basename(source) : '');
      fs.cpSync(path.join(checkout, source), target, { recursive: true, filter: (file) => !ignored(path.relative(checkout, file)) });
    }
  }
  fs.symlinkSync(path.join(checkout, 'node_modules'), path.join(root, 'node_modules'), 'dir');
}

/**
 * Reproduces the runtime stage of `dockerfile` in `root`: COPY from the
 * checkout (`checkout`) or from the build stage's `/app/dist` (`builtDist`,
 * awaited when the stage reaches it), RUN as shell commands in `root` with
 * `env`. `onStep` hears how long each instruction took.
 */
export async function reproduceRuntimeStage({
  dockerfile,
  checkout,
  root,
  builtDist,
  env,
  onStep,
}: {
  dockerfile: string;
  checkout: string;
  root: string;
  builtDist: Promise<string>;
  env: NodeJS.ProcessEnv;
  onStep: (step: string, ms: number) => void;
}): Promise<Runtime> {
  const stages = stagesOf(fs.readFileSync(dockerfile, 'utf8'));
  const stage = stages.at(-1);
  if (!stage) throw new Error(`${dockerfile} has no stage`);
  const workdirOf = (of: Stage | undefined): string => of?.instructions.findLast((instruction) => instruction.keyword === 'WORKDIR')?.text ?? '/';
  const buildDist = `${workdirOf(stages.find((candidate) => candidate.name === 'build'))}/dist`;
  const user = stage.instructions.findLast((instruction) => instruction.keyword === 'USER')?.text;
  const runtime: Runtime = { root, env: {}, entrypoint: [], cmd: [], user, userOwns: [] };
  let workdir = '/';
  /** A path of the image as a path under `root`. */
  const inRoot = (file: string): string => {
    const absolute = path.posix.resolve(workdir, file);
    if (absolute !== workdir && !absolute.startsWith(`${workdir}/`)) throw new Error(`the smoke reproduces ${workdir} only, not ${file}`);
    return path.relative(workdir, absolute) || '.';
  };
  fs.mkdirSync(root, { recursive: true });
  for (const { keyword, text } of stage.instructions) {
    const started = performance.now();
    switch (keyword) {
      case 'WORKDIR':
        workdir = text;
        break;
      case 'ENV':
        for (const [, name = '', value = ''] of text.matchAll(/(\w+)=(\S+)/g)) runtime.env[name] = value;
        break;
      case 'COPY': {
        const words = text.split(/\s+/);
        const from = words.find((word) => word.startsWith('--from='))?.slice('--from='.length);
        const paths = words.filter((word) => !word.startsWith('--'));
        const destination = paths.at(-1) ?? '';
        for (const source of paths.slice(0, -1)) {
          let origin: string;
          if (from === undefined) origin = path.join(checkout, source);
          else if (from === 'build' && source === buildDist) origin = await builtDist;
          else throw new Error(`the smoke cannot reproduce COPY ${text}: only the build stage's ${buildDist} is known`);
          const destinationInRoot = path.join(root, inRoot(destination));
          const target = destination.endsWith('/') ? path.join(destinationInRoot, path.basename(source)) : destinationInRoot;
          fs.cpSync(origin, target, { recursive: true });
        }
        onStep(`COPY ${text}`, performance.now() - started);
        break;
      }
      case 'RUN': {
        const commands = text.split('&&').map((command) => command.trim());
        const unknown = commands.filter((command) => !/^(npm|rm|mkdir|chown) /.test(command));
        if (unknown.length > 0) throw new Error(`the smoke does not know how to run ${unknown.join(', ')} outside the image`);
        // Paths are the image's: each must be under WORKDIR, and is given relative to the folder.
        const here = commands
          .filter((command) => !notOnThisMachine.some((pattern) => pattern.test(command)))
          .flatMap((command) => {
            const [program = '', ...words] = command.split(/\s+/);
            const operands = words.filter((word) => !word.startsWith('-'));
            if (program === 'chown') {
              const [owner = '', ...files] = operands;
              if (owner.split(':')[0] !== user) throw new Error(`the smoke gives files to the image's USER only, not by ${command}`);
              runtime.userOwns.push(...files.map(inRoot));
              return [];
            }
            if (program === 'npm') return [command];
            return [[program, ...words.filter((word) => word.startsWith('-')), ...operands.map(inRoot)].join(' ')];
          });
        await run('sh', ['-c', here.join(' && ')], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 });
        onStep(`RUN ${here.join(' && ')}`, performance.now() - started);
        break;
      }
      case 'ENTRYPOINT':
        runtime.entrypoint = JSON.parse(text) as string[];
        break;
      case 'CMD':
        runtime.cmd = JSON.parse(text) as string[];
        break;
      case 'USER':
        runtime.user = text;
        break;
      // EXPOSE and HEALTHCHECK say how the container is reached and watched.
      case 'EXPOSE':
      case 'HEALTHCHECK':
        break;
      default:
        throw new Error(`the smoke does not know the Dockerfile instruction ${keyword}`);
    }
  }
  if (runtime.entrypoint[0] !== 'node') throw new Error(`the image's entrypoint is not node: ${runtime.entrypoint.join(' ')}`);
  return runtime;
}
