import { readFile } from 'node:fs/promises';

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
      throw new TokenSourceError(
        `cannot read the token file ${args.tokenFile}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    const token = text.trim();
    if (token === '') throw new TokenSourceError(`the token file ${args.tokenFile} is empty`);
    return token;
  }
  throw new TokenSourceError('no access token: set SHOPSNAP_TOKEN or SHOPSNAP_TOKEN_FILE (or pass --token-file)');
}
