/**
 * The official rules, offline: `../shared/validation/validate-einvoice` (CEN EN 16931 artefacts, the CII
 * schema, KoSIT's XRechnung Schematron, run by Saxon-HE; README beside it). The repository's clone sits
 * beside `shared/` on the developers' machines and in CI, so it is found from the repository's parent;
 * VALIDATION_DIR points elsewhere. Each run starts a JVM (seconds): files are validated in parallel, one
 * run per file, as many at once as there are cores, by a JVM tuned for short runs (the client compiler
 * only, the serial collector: about half the time of the defaults for one file, figures in
 * docs/performance.md).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Read by every JVM the validator starts; Java announces it on a line of its own, which is not a rule. */
const jvmOptions = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData';
const jvmAnnouncement = 'Picked up JAVA_TOOL_OPTIONS';

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

function validateOne(file: string, xrechnung: boolean): Promise<ValidationResult> {
  return new Promise((resolve) => {
    // Through bash: CI's copy of shared/ may not keep the script's mode bits.
    execFile(
      'bash',
      [path.join(validationDirectory, 'validate-einvoice'), file, ...(xrechnung ? ['--xrechnung'] : [])],
      { maxBuffer: 16 * 1024 * 1024, env: { ...process.env, JAVA_TOOL_OPTIONS: jvmOptions } },
      (error, stdout, stderr) => {
        const exitCode = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        const lines = `${stdout}\n${stderr}`.split('\n').filter((line) => line.trim() !== '' && !line.startsWith(jvmAnnouncement));
        resolve({ file, exitCode, lines });
      },
    );
  });
}

/**
 * Validates every file (XRechnung ones with `--xrechnung`), a few at a time; results in the order given.
 * The validator compiles KoSIT's rules for a syntax on its first XRechnung run into a cache file shared by
 * later runs: one XRechnung file of each syntax goes first, alone for its syntax, so that runs in parallel
 * never compile (and write) the same cache file at once.
 */
export async function validateEInvoices(files: readonly { file: string; xrechnung: boolean }[]): Promise<ValidationResult[]> {
  const results: ValidationResult[] = new Array(files.length);
  const syntaxOf = (file: string) => (fs.readFileSync(file, 'utf8').includes('CrossIndustryInvoice') ? 'cii' : 'ubl');
  const first = new Map<string, number>();
  files.forEach(({ file, xrechnung }, index) => {
    if (xrechnung && !first.has(syntaxOf(file))) first.set(syntaxOf(file), index);
  });
  await Promise.all(
    [...first.values()].map(async (index) => {
      const { file, xrechnung } = files[index] as { file: string; xrechnung: boolean };
      results[index] = await validateOne(file, xrechnung);
    }),
  );
  const rest = files.map((_, index) => index).filter((index) => results[index] === undefined);
  let next = 0;
  const worker = async () => {
    while (next < rest.length) {
      const index = rest[next++] as number;
      const { file, xrechnung } = files[index] as { file: string; xrechnung: boolean };
      results[index] = await validateOne(file, xrechnung);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(os.availableParallelism(), rest.length)) }, worker));
  return results;
}
