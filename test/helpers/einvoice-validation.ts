/**
 * The official rules, offline: `../shared/validation/validate-einvoice` (CEN EN 16931 artefacts, the CII
 * schema, KoSIT's XRechnung Schematron, OpenPEPPOL's BIS Billing 3.0 Schematron, run by Saxon-HE; README beside it). The repository's clone sits
 * beside `shared/` on the developers' machines and in CI, so it is found from the repository's parent;
 * VALIDATION_DIR points elsewhere.
 *
 * The script validates one file and starts a JVM for each of its steps (two to four, seconds each, most of it
 * starting Java and compiling the rules). The tests validate dozens of files, so `validateEInvoices` runs the
 * script's steps over all of them at once: the same stylesheets, the same schema and the same cache of
 * compiled rules, each Saxon run given a folder of files (Saxon compiles a stylesheet once and applies it to
 * every file of the folder). A run of a few dozen files starts about five JVMs instead of about a hundred
 * (figures in docs/performance.md, "CI time"). A step that fails as a whole falls back to the script, file by
 * file, so a file the batch could not handle is still judged by the script itself; `validateWithScript` runs
 * the script alone, and a test checks that both say the same (test/einvoice-validation.test.ts).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Read by every JVM: the client compiler only, the serial collector (about half the time of the defaults for
 * one short run, figures in docs/performance.md). Java announces it on a line of its own, which is not a rule.
 */
const jvmOptions = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData';
const jvmAnnouncement = 'Picked up JAVA_TOOL_OPTIONS';
const saxon = '/usr/share/java/Saxon-HE.jar';

/**
 * `VALIDATION_DIR`, else the nearest `shared/validation` beside the clone or beside one of its parents (a CI
 * clone in a scratch folder still finds the developers' `shared/`), else `/work/shared/validation`.
 */
function findValidationDirectory(): string {
  if (process.env.VALIDATION_DIR) return process.env.VALIDATION_DIR;
  const repository = path.resolve(import.meta.dirname, '../..');
  for (let directory = path.dirname(repository); ; directory = path.dirname(directory)) {
    const candidate = path.join(directory, 'shared', 'validation');
    if (fs.existsSync(path.join(candidate, 'validate-einvoice'))) return candidate;
    if (path.dirname(directory) === directory) break;
  }
  return '/work/shared/validation';
}

export const validationDirectory = findValidationDirectory();

export interface ValidationResult {
  file: string;
  exitCode: number;
  /** Every failed rule, `flag id text`, e.g. `fatal BR-CO-10 ...` or `warning BR-DE-21 ...`. */
  lines: string[];
}

/** A file to validate, and the rules on top of EN 16931 it must pass too. */
export interface ValidationFile {
  file: string;
  xrechnung?: boolean;
  peppol?: boolean;
}

type Syntax = 'cii' | 'ubl';
/** The rules on top of EN 16931, by the script's name for them (its cache files are `<name>-<syntax>.xsl`). */
type Cius = 'xrechnung' | 'peppol';

const ciusOf = ({ xrechnung, peppol }: ValidationFile): Cius | undefined => (xrechnung ? 'xrechnung' : peppol ? 'peppol' : undefined);
const optionOf = (entry: ValidationFile): string[] => {
  const cius = ciusOf(entry);
  return cius ? [`--${cius}`] : [];
};

interface Ran {
  exitCode: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024, env: { ...process.env, JAVA_TOOL_OPTIONS: jvmOptions } }, (error, stdout, stderr) => {
      resolve({ exitCode: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const withoutAnnouncement = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith(jvmAnnouncement));

/** The script itself on one file (through bash: CI's copy of shared/ may not keep the script's mode bits). */
async function validateOne(file: string, option: string[]): Promise<ValidationResult> {
  const { exitCode, stdout, stderr } = await run('bash', [path.join(validationDirectory, 'validate-einvoice'), file, ...option]);
  return { file, exitCode, lines: withoutAnnouncement(`${stdout}\n${stderr}`) };
}

/** Runs `work` over `items`, at most as many at once as there are cores. */
async function eachAtMost<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(os.availableParallelism(), items.length)) }, worker));
}

/**
 * Validates each file by the script alone, a few at a time; results in the order given. The script compiles
 * KoSIT's and Peppol's rules for a syntax on their first run into a cache file shared by later runs: one file
 * of each (rules, syntax) goes first, so that runs in parallel never compile (and write) the same cache file at once.
 */
export async function validateWithScript(files: readonly ValidationFile[]): Promise<ValidationResult[]> {
  const results: ValidationResult[] = new Array(files.length);
  const first = new Map<string, number>();
  files.forEach((entry, index) => {
    const key = `${ciusOf(entry)}|${fs.readFileSync(entry.file, 'utf8').includes('CrossIndustryInvoice') ? 'cii' : 'ubl'}`;
    if (ciusOf(entry) && !first.has(key)) first.set(key, index);
  });
  const validate = async (index: number) => {
    const entry = files[index] as ValidationFile;
    results[index] = await validateOne(entry.file, optionOf(entry));
  };
  await Promise.all([...first.values()].map(validate));
  await eachAtMost(
    files.map((_, index) => index).filter((index) => results[index] === undefined),
    validate,
  );
  return results;
}

/** The root element's name, as the script reads it (xmllint), to tell CII from UBL. */
async function syntaxOf(file: string): Promise<Syntax | undefined> {
  const { stdout } = await run('xmllint', ['--xpath', 'local-name(/*)', file]);
  const root = stdout.trim();
  return root === 'CrossIndustryInvoice' ? 'cii' : root === 'Invoice' || root === 'CreditNote' ? 'ubl' : undefined;
}

/** One Saxon run of `stylesheet` over every file of `input`, into `output` (same names); whether it succeeded. */
async function transformFolder(input: string, stylesheet: string, output: string): Promise<boolean> {
  fs.mkdirSync(output, { recursive: true });
  return (await run('java', ['-jar', saxon, `-s:${input}`, `-xsl:${stylesheet}`, `-o:${output}`])).exitCode === 0;
}

/**
 * The script's compiled KoSIT or Peppol rules for a syntax: compiled with SchXslt into the script's own cache
 * (`$TMPDIR/validate-einvoice-cache/<name>-<syntax>.xsl`) when missing or older than the Schematron, as the
 * script does, renamed into place so that a run of the script at the same time never reads half a file.
 */
async function compiledRules(cius: Cius, syntax: Syntax, work: string): Promise<string | undefined> {
  const upper = syntax.toUpperCase();
  const schematron =
    cius === 'xrechnung'
      ? path.join(validationDirectory, 'xrechnung', syntax, `XRechnung-${upper}-validation.sch`)
      : path.join(validationDirectory, 'peppol', `PEPPOL-EN16931-${upper}.sch`);
  const cache = path.join(process.env.TMPDIR ?? '/tmp', 'validate-einvoice-cache');
  fs.mkdirSync(cache, { recursive: true });
  const compiled = path.join(cache, `${cius}-${syntax}.xsl`);
  const fresh = fs.existsSync(compiled) && fs.statSync(compiled).size > 0 && fs.statSync(compiled).mtimeMs >= fs.statSync(schematron).mtimeMs;
  if (fresh) return compiled;
  const written = path.join(work, `${cius}-${syntax}.xsl`);
  const { exitCode } = await run('java', [
    '-jar',
    saxon,
    `-s:${schematron}`,
    `-xsl:${path.join(validationDirectory, 'schxslt', 'pipeline-for-svrl.xsl')}`,
    `-o:${written}`,
  ]);
  if (exitCode !== 0) return undefined;
  fs.renameSync(written, compiled);
  return compiled;
}

const isFatal = (lines: readonly string[]) => lines.some((line) => line.startsWith('fatal') || line.startsWith('error'));

/**
 * Validates every file (with `--xrechnung` or `--peppol` where asked) as the script does, step by step over
 * all files at once; results in the order given. Per file, the lines come in the script's order (the CII
 * schema, EN 16931, then KoSIT's or Peppol's rules), and the exit code is the script's: 1 when a line is
 * fatal or an error.
 */
export async function validateEInvoices(files: readonly ValidationFile[]): Promise<ValidationResult[]> {
  if (files.length === 0) return [];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-validate-'));
  try {
    const syntaxes = await Promise.all(files.map((entry) => syntaxOf(entry.file)));
    // A file the script would refuse outright (not an invoice, missing), or a step that failed as a whole, is the script's to judge.
    const byScript = new Set<number>(
      files.map((entry, index) => (syntaxes[index] === undefined || !fs.existsSync(entry.file) ? index : -1)).filter((index) => index >= 0),
    );
    const lines: string[][] = files.map(() => []);
    // Each file under its index: the folders Saxon reads and writes hold one name per file.
    const staged = (index: number) => `${index}.xml`;
    const stage = (folder: string, indexes: readonly number[]) => {
      fs.mkdirSync(folder, { recursive: true });
      for (const index of indexes) fs.copyFileSync((files[index] as ValidationFile).file, path.join(folder, staged(index)));
    };
    const svrl = path.join(work, 'svrl');
    const reports: { index: number; svrl: string }[] = [];
    const steps: Promise<void>[] = [];
    for (const syntax of ['cii', 'ubl'] as const) {
      const indexes = files.map((_, index) => index).filter((index) => syntaxes[index] === syntax && !byScript.has(index));
      if (indexes.length === 0) continue;
      if (syntax === 'cii') {
        const schema = path.join(validationDirectory, 'en16931/cii/schema/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd');
        steps.push(
          eachAtMost(indexes, async (index) => {
            const { exitCode, stderr } = await run('xmllint', ['--noout', '--schema', schema, (files[index] as ValidationFile).file]);
            if (exitCode === 0) return;
            const reasons = stderr
              .split('\n')
              .filter((line) => line !== '' && !line.includes('fails to validate'))
              .slice(0, 5);
            // The script's line word for word: the reasons joined by spaces, a space after the last one.
            lines[index]?.push(`fatal XSD ${reasons.map((line) => `${line} `).join('')}`);
          }),
        );
      }
      const input = path.join(work, `in-${syntax}`);
      stage(input, indexes);
      const upper = syntax.toUpperCase();
      steps.push(
        (async () => {
          const output = path.join(svrl, `en-${syntax}`);
          if (!(await transformFolder(input, path.join(validationDirectory, 'en16931', syntax, `EN16931-${upper}-validation.xslt`), output))) {
            for (const index of indexes) byScript.add(index);
            return;
          }
          for (const index of indexes) reports.push({ index, svrl: path.join(output, staged(index)) });
        })(),
      );
      for (const cius of ['xrechnung', 'peppol'] as const) {
        const chosen = indexes.filter((index) => ciusOf(files[index] as ValidationFile) === cius);
        if (chosen.length === 0) continue;
        const ciusInput = path.join(work, `in-${cius}-${syntax}`);
        stage(ciusInput, chosen);
        steps.push(
          (async () => {
            const rules = await compiledRules(cius, syntax, work);
            const output = path.join(svrl, `${cius}-${syntax}`);
            if (!rules || !(await transformFolder(ciusInput, rules, output))) {
              for (const index of chosen) byScript.add(index);
              return;
            }
            for (const index of chosen) reports.push({ index, svrl: path.join(output, staged(index)) });
          })(),
        );
      }
    }
    await Promise.all(steps);
    // Every report, EN 16931's before the rules on top of it, read into lines by one run of the script's svrl-lines.xsl.
    const order = (report: string) => (path.basename(path.dirname(report)).startsWith('en-') ? 0 : 1);
    const kept = reports.filter((report) => !byScript.has(report.index)).sort((a, b) => order(a.svrl) - order(b.svrl));
    const reportInput = path.join(work, 'reports');
    fs.mkdirSync(reportInput);
    for (const [position, report] of kept.entries()) fs.copyFileSync(report.svrl, path.join(reportInput, `${position}.xml`));
    const reportOutput = path.join(work, 'lines');
    if (kept.length > 0 && !(await transformFolder(reportInput, path.join(validationDirectory, 'svrl-lines.xsl'), reportOutput))) {
      for (const report of kept) byScript.add(report.index);
    }
    for (const [position, report] of kept.entries()) {
      if (byScript.has(report.index)) continue;
      lines[report.index]?.push(...withoutAnnouncement(fs.readFileSync(path.join(reportOutput, `${position}.xml`), 'utf8')));
    }
    const results: ValidationResult[] = files.map((entry, index) => {
      const found = lines[index] as string[];
      return { file: entry.file, exitCode: isFatal(found) ? 1 : 0, lines: found };
    });
    const rest = [...byScript].sort((a, b) => a - b);
    const judged = await validateWithScript(rest.map((index) => files[index] as ValidationFile));
    rest.forEach((index, position) => {
      results[index] = judged[position] as ValidationResult;
    });
    return results;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Every file's failed rules, after validating them all: empty when each passed without a warning. */
export async function failedRules(files: readonly ValidationFile[]): Promise<string[]> {
  return (await validateEInvoices(files))
    .filter((result) => result.exitCode !== 0 || result.lines.length > 0)
    .map((result) => `${path.basename(result.file)}: ${result.lines.join(' | ')}`);
}
