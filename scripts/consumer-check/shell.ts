import { spawn } from 'node:child_process';

/** Output of a finished command. */
export interface CommandOutput {
  stdout: string;
  stderr: string;
}

/**
 * Runs `command args` in `cwd` and resolves with its output; rejects with the output when it
 * exits non-zero or runs past `timeoutMs` (then it is killed).
 */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CommandOutput> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve({ stdout, stderr });
      const how =
        signal === null ? `exit code ${code}` : `signal ${signal} (timeout ${timeoutMs} ms?)`;
      reject(
        new Error(
          `${command} ${args.join(' ')} failed (${how}) in ${options.cwd}\n${stdout}\n${stderr}`,
        ),
      );
    });
  });
}

/**
 * `npm install` in a fresh consumer project, from the registry (npm's cache first), never
 * touching its package.json: the tarballs replace the `@switchboard/*` ranges it declares.
 */
export function npmInstall(cwd: string, specs: readonly string[]): Promise<CommandOutput> {
  return run(
    'npm',
    [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      ...specs,
    ],
    // Not this repository's workspace: a fresh project, as a user's is.
    { cwd, env: { npm_config_workspaces: 'false' }, timeoutMs: 600_000 },
  );
}
