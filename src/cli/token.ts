import { readFile } from 'node:fs/promises';
import { fileErrorReason } from '../local-file.js';

export class TokenSourceError extends Error {
  override name = 'TokenSourceError';
  readonly code = 'ERR_TOKEN_SOURCE';
}

/** The access token from --token / SHOPSNAP_TOKEN, or from the file named by --token-file / SHOPSNAP_TOKEN_FILE. */
export async function resolveToken(args: { token?: string; tokenFile?: string }): Promise<string> {
  if (args.token !== undefined && args.token !== '') return args.token.trim();
  if (args.tokenFile !== undefined && args.tokenFile !== '') {
    let text: string;
    try {
      text = await readFile(args.tokenFile, 'utf8');
    } catch (error) {
      throw new TokenSourceError(`cannot read the token file ${args.tokenFile}: ${fileErrorReason(error)}`);
    }
    const token = text.trim();
    if (token === '') throw new TokenSourceError(`the token file ${args.tokenFile} is empty`);
    return token;
  }
  throw new TokenSourceError('no access token: set SHOPSNAP_TOKEN or SHOPSNAP_TOKEN_FILE (or pass --token-file)');
}

/**
 * The token of one shop of a job: from the variable its `token_env` names, else from its `token_file`. Only a job of
 * one shop that names neither falls back to --token / --token-file (and their SHOPSNAP_* variables). Errors name the
 * variable or file the shop needs, never the SHOPSNAP_* ones when the job names its own.
 */
export async function jobShopToken(
  entry: { tokenEnv?: string; tokenFile?: string },
  fallback: { token?: string; tokenFile?: string } | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const { tokenEnv, tokenFile } = entry;
  if (tokenEnv === undefined && tokenFile === undefined) {
    if (fallback === undefined) {
      throw new TokenSourceError('no access token: the job names no token_env or token_file for this shop');
    }
    return resolveToken(fallback);
  }
  const fromEnv = tokenEnv === undefined ? undefined : env[tokenEnv]?.trim();
  if (fromEnv) return fromEnv;
  const unset = `the variable ${tokenEnv} (its token_env) is not set`;
  if (tokenFile === undefined) throw new TokenSourceError(`no access token: ${unset}`);
  try {
    return await resolveToken({ tokenFile });
  } catch (error) {
    if (tokenEnv === undefined) throw error;
    throw new TokenSourceError(`no access token: ${unset}, and ${(error as Error).message}`);
  }
}
