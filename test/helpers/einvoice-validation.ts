/**
 * The official rules, offline: `../shared/validation/validate-einvoice` (CEN EN 16931 artefacts, the CII
 * schema, KoSIT's XRechnung Schematron, OpenPEPPOL's BIS Billing 3.0 Schematron, run by Saxon-HE; README beside it). The repository's clone sits
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

/** A file to validate, and the rules on top of EN 16931 it must pass too. */
export interface ValidationFile {
  file: string;
  xrechnung?: boolean;
  peppol?: boolean;
}

const optionOf = ({ xrechnung, peppol }: ValidationFile): string[] => (xrechnung ? ['--xrechnung'] : peppol ? ['--peppol'] : []);

function validateOne(file: string, option: string[]): Promise<ValidationResult> {
  return new Promise((resolve) => {
    // Through bash: CI's copy of shared/ may not keep the script's mode bits.
    execFile(
      'bash',
      [path.join(validationDirectory, 'validate-einvoice'), file, ...option],
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
 * Validates every file (with `--xrechnung` or `--peppol` where asked), a few at a time; results in the order
 * given. The validator compiles KoSIT's and Peppol's rules for a syntax on their first run into a cache file
 * shared by later runs: one file of each (rules, syntax) goes first, so that runs in parallel never compile
 * (and write) the same cache file at once.
 */
export async function validateEInvoices(files: readonly ValidationFile[]): Promise<ValidationResult[]> {
  const results: ValidationResult[] = new Array(files.length);
  const syntaxOf = (file: string) => (fs.readFileSync(file, 'utf8').includes('CrossIndustryInvoice') ? 'cii' : 'ubl');
  const first = new Map<string, number>();
  files.forEach((entry, index) => {
    const key = `${optionOf(entry).join('')}|${syntaxOf(entry.file)}`;
    if (optionOf(entry).length > 0 && !first.has(key)) first.set(key, index);
  });
  await Promise.all(
    [...first.values()].map(async (index) => {
      const entry = files[index] as ValidationFile;
      results[index] = await validateOne(entry.file, optionOf(entry));
    }),
  );
  const rest = files.map((_, index) => index).filter((index) => results[index] === undefined);
  let next = 0;
  const worker = async () => {
    while (next < rest.length) {
      const index = rest[next++] as number;
      const entry = files[index] as ValidationFile;
      results[index] = await validateOne(entry.file, optionOf(entry));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(os.availableParallelism(), rest.length)) }, worker));
  return results;
}

/** Every file's failed rules, after validating them all: empty when each passed without a warning. */
export async function failedRules(files: readonly ValidationFile[]): Promise<string[]> {
  return (await validateEInvoices(files))
    .filter((result) => result.exitCode !== 0 || result.lines.length > 0)
    .map((result) => `${path.basename(result.file)}: ${result.lines.join(' | ')}`);
}
