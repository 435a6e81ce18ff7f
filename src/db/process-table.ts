/**
 * What the embedded-database code asks of the operating system about other
 * processes, behind one interface so that tests can give it a fake table.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface ProcessTable {
  isAlive(pid: number): boolean;
  /** The parent's pid, or undefined when this system cannot tell. */
  parentOf(pid: number): number | undefined;
  /** Asks a process to stop (SIGINT: PostgreSQL's fast shutdown). */
  interrupt(pid: number): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Linux: field 4 of /proc/<pid>/stat, after the command name (in parentheses, possibly with spaces). */
function parentFromProcfs(procRoot: string, pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(path.join(procRoot, String(pid), 'stat'), 'utf8');
    const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const parent = Number(afterName[1]);
    return Number.isInteger(parent) ? parent : undefined;
  } catch {
    return undefined;
  }
}

/** Everywhere else (macOS, the BSDs): `ps -o ppid= -p <pid>`. */
function parentFromPs(pid: number): number | undefined {
  try {
    const output = execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
    const parent = Number(output.toString().trim());
    return output.toString().trim() !== '' && Number.isInteger(parent) ? parent : undefined;
  } catch {
    return undefined;
  }
}

export interface SystemProcessTableOptions {
  /** Where procfs is mounted; absent on macOS. */
  procRoot?: string;
}

/** The real process table of this machine. */
export function systemProcessTable({ procRoot = '/proc' }: SystemProcessTableOptions = {}): ProcessTable {
  const hasProcfs = fs.existsSync(path.join(procRoot, 'self'));
  return {
    isAlive,
    parentOf: (pid) => (hasProcfs ? parentFromProcfs(procRoot, pid) : parentFromPs(pid)),
    interrupt: (pid) => process.kill(pid, 'SIGINT'),
  };
}
