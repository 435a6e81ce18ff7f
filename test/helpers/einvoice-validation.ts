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
    execFile(
      path.join(validationDirectory, 'validate-einvoice'),
      xrechnung ? [file, '--xrechnung'] : [file],
      { maxBuffer: 16 * 1024 * 1024, env: { ...process.env, JAVA_TOOL_OPTIONS: jvmOptions } },
      (error, stdout, stderr) => {
        const exitCode = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        const lines = `${stdout}\n${stderr}`.split('\n').filter((line) => line.trim() !== '' && !line.startsWith(jvmAnnouncement));
        resolve({ file, exitCode, lines });
      },
    );
  });
}

/** Validates every file (XRechnung ones with `--xrechnung`), a few at a time, in the order given. */
export async function validateEInvoices(files: readonly { file: string; xrechnung: boolean }[]): Promise<ValidationResult[]> {
  const results: ValidationResult[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const index = next++;
      const { file, xrechnung } = files[index] as { file: string; xrechnung: boolean };
      results[index] = await validateOne(file, xrechnung);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(os.availableParallelism(), files.length)) }, worker));
  return results;
}
