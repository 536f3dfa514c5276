import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { contextSources, dockerfileProblems, isIgnored, parseDockerfile } from './dockerfile-rules.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCKERFILE = readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8');
/** BuildKit reads <Dockerfile>.dockerignore next to the Dockerfile given with -f, before the context's .dockerignore. */
const IGNORE = readFileSync(join(ROOT, 'deploy/Dockerfile.dockerignore'), 'utf8');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { shopsnap: string } };
const ENTRYPOINT = ['node', `/app/${PACKAGE.bin.shopsnap}`];

describe('deploy/Dockerfile (read, not built: no container engine here)', () => {
  it('is multi-stage on Node 22+, installs production dependencies per platform, runs non-root', () => {
    expect(dockerfileProblems(DOCKERFILE, ENTRYPOINT)).toEqual([]);
  });

  it('starts the bin package.json declares, which tsc builds from src/cli/main.ts', () => {
    expect(ENTRYPOINT).toEqual(['node', '/app/dist/cli/main.js']);
    expect(existsSync(join(ROOT, 'src/cli/main.ts'))).toBe(true);
  });

  it.each(contextSources(DOCKERFILE))('copies %s, which exists and the ignore file lets through', (source) => {
    expect(existsSync(join(ROOT, source))).toBe(true);
    expect(isIgnored(source, IGNORE)).toBe(false);
  });

  it.each(['node_modules', 'dist', 'snapshots', '.git', '.env', 'test', 'deploy/kubernetes'])(
    'keeps %s out of the build context',
    (path) => {
      expect(isIgnored(path, IGNORE)).toBe(true);
    },
  );

  const broken: [string, string, string, RegExp][] = [
    ['a root user', 'USER 1000:1000', 'USER root', /USER root must be a non-zero numeric uid/],
    ['no user', 'USER 1000:1000', '', /USER \(none\)/],
    ['Node 20', 'FROM node:22-slim AS runtime', 'FROM node:20-slim AS runtime', /node:20-slim must be node:22/],
    ['a non-LTS line', 'FROM node:22-slim AS runtime', 'FROM node:23-slim AS runtime', /node:23-slim/],
    [
      'a shell-form entrypoint',
      'ENTRYPOINT ["node", "/app/dist/cli/main.js"]',
      'ENTRYPOINT node dist/cli/main.js',
      /ENTRYPOINT/,
    ],
    [
      'the host’s node_modules',
      'COPY jobs ./jobs',
      'COPY jobs ./jobs\nCOPY node_modules ./node_modules',
      /node_modules/,
    ],
    ['dev dependencies in the image', '--omit=dev ', '', /--omit=dev/],
    ['a token baked in', 'ENV NODE_ENV=production', 'ENV SHOPSNAP_TOKEN=shpat_x', /no credentials/],
    ['no job files', 'COPY jobs ./jobs', '', /copy jobs/],
    ['no compiled code', 'COPY --from=build /app/dist ./dist', 'COPY dist ./dist', /dist\/ from the build stage/],
  ];
  it.each(broken)('finds %s', (_name, from, to, message) => {
    const variant = DOCKERFILE.replace(from, to);
    expect(variant).not.toBe(DOCKERFILE);
    expect(dockerfileProblems(variant, ENTRYPOINT).join('\n')).toMatch(message);
  });

  it('finds a single-stage image', () => {
    const runtimeOnly = DOCKERFILE.slice(DOCKERFILE.indexOf('FROM node:22-slim AS runtime'));
    expect(dockerfileProblems(runtimeOnly, ENTRYPOINT).join('\n')).toMatch(/multi-stage/);
  });

  it('joins continued lines and skips comments, also between continued lines', () => {
    const text = 'FROM node:22-slim\n# note\nRUN a \\\n# inside\n  && b\n\nUSER 1000\n';
    expect(parseDockerfile(text)).toEqual([
      { keyword: 'FROM', args: 'node:22-slim' },
      { keyword: 'RUN', args: 'a && b' },
      { keyword: 'USER', args: '1000' },
    ]);
  });

  it.each([
    ['src/cli/main.ts', '*\n!src\n', false],
    ['srcs', '*\n!src\n', true],
    ['src', '*\n!src\nsrc\n', true],
    ['jobs', '# comment\n\n*\n!jobs\n', false],
  ])('ignore file: %s with %j is ignored: %s', (path, text, ignored) => {
    expect(isIgnored(path, text)).toBe(ignored);
  });

  it('refuses ignore patterns it does not evaluate like Docker', () => {
    expect(() => isIgnored('src', '**/*.md\n')).toThrow(/unsupported pattern/);
  });
});
