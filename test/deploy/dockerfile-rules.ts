export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}

/** Instructions of a Dockerfile: `\` continuations joined, comment lines (also inside continuations) dropped. */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    const continued = line.endsWith('\\');
    pending += `${continued ? line.slice(0, -1).trimEnd() : line} `;
    if (continued) continue;
    const match = /^(\S+)\s*(.*)$/.exec(pending.trim());
    if (match !== null) instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim() });
    pending = '';
  }
  return instructions;
}

/** Build stages: each FROM with its image (flags such as --platform dropped), `AS` name, and instructions. */
export function parseStages(instructions: readonly Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = instruction.args.split(/\s+/).filter((word) => !word.startsWith('--'));
      stages.push({ image, ...(as?.toUpperCase() === 'AS' && name ? { name } : {}), instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

/** Node release lines with long-term support are the even ones; the image must run 22 or a newer one. */
const MIN_NODE_MAJOR = 22;
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|ACCESS_KEY|CREDENTIAL/i;

/** Everything in a Dockerfile that breaks the image rules of deploy/README.md. */
export function dockerfileProblems(text: string, entrypoint: readonly string[]): string[] {
  const instructions = parseDockerfile(text);
  const stages = parseStages(instructions);
  const problems: string[] = [];
  if (stages.length < 2) problems.push('must be multi-stage: a build stage and a runtime stage');
  const names = new Set(stages.flatMap((stage) => (stage.name === undefined ? [] : [stage.name])));
  for (const stage of stages) {
    if (names.has(stage.image)) continue;
    const major = Number(/^node:(\d+)[-\w.]*(@sha256:[0-9a-f]{64})?$/.exec(stage.image)?.[1]);
    if (!(major >= MIN_NODE_MAJOR && major % 2 === 0)) {
      problems.push(`base image ${stage.image} must be node:${MIN_NODE_MAJOR}-slim or a newer LTS line`);
    }
  }
  for (const { keyword, args } of instructions) {
    if ((keyword === 'COPY' || keyword === 'ADD') && /(^|[\s/])node_modules\b/.test(args)) {
      problems.push(`${keyword} ${args}: node_modules must be installed by the image's own platform, not copied`);
    }
    if ((keyword === 'ENV' || keyword === 'ARG') && SECRET_NAME.test(args.split(/[=\s]/)[0] ?? '')) {
      problems.push(`${keyword} ${args}: no credentials in an image`);
    }
  }
  const runtime = stages.at(-1);
  if (runtime === undefined) return problems;
  const last = (keyword: string) => runtime.instructions.filter((i) => i.keyword === keyword).at(-1)?.args;
  const user = last('USER');
  if (user === undefined || !/^[1-9]\d*(:\d+)?$/.test(user)) {
    problems.push(`runtime USER ${user ?? '(none)'} must be a non-zero numeric uid (Kubernetes runAsNonRoot)`);
  }
  const exec = last('ENTRYPOINT');
  if (exec === undefined || !exec.startsWith('[') || JSON.stringify(JSON.parse(exec)) !== JSON.stringify(entrypoint)) {
    problems.push(`ENTRYPOINT must be the exec form ${JSON.stringify(entrypoint)}`);
  }
  const runs = runtime.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  if (!runs.some((run) => /npm ci\b/.test(run) && run.includes('--omit=dev') && run.includes('--ignore-scripts'))) {
    problems.push('runtime stage must install with npm ci --omit=dev --ignore-scripts');
  }
  const copies = runtime.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
  const distFromStage = copies
    .map((copy) => /--from=(\S+)\s+(\S+)/.exec(copy))
    .some((match) => match !== null && names.has(match[1]!) && /(^|\/)dist\/?$/.test(match[2]!));
  if (!distFromStage) problems.push('runtime stage must copy dist/ from the build stage');
  if (!copies.some((copy) => /^jobs\s/.test(copy))) problems.push('runtime stage must copy jobs/');
  const build = stages.slice(0, -1).flatMap((stage) => stage.instructions);
  if (!build.some((i) => i.keyword === 'RUN' && /npm run build\b/.test(i.args))) {
    problems.push('a build stage must run npm run build');
  }
  return problems;
}

/** Sources of COPY/ADD from the build context (not from another stage). */
export function contextSources(text: string): string[] {
  return parseDockerfile(text)
    .filter((i) => (i.keyword === 'COPY' || i.keyword === 'ADD') && !i.args.includes('--from='))
    .flatMap((i) =>
      i.args
        .split(/\s+/)
        .filter((word) => !word.startsWith('--'))
        .slice(0, -1),
    );
}

/**
 * Whether a context path is left out by a .dockerignore made of `*` and `!name` / `name` lines (the last matching
 * line wins). Other pattern syntax throws, so this never silently disagrees with Docker.
 */
export function isIgnored(path: string, ignoreText: string): boolean {
  let ignored = false;
  for (const raw of ignoreText.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const pattern = negated ? line.slice(1) : line;
    if (pattern !== '*' && !/^[\w.-]+(\/[\w.-]+)*$/.test(pattern)) throw new Error(`unsupported pattern ${line}`);
    if (pattern === '*' || path === pattern || path.startsWith(`${pattern}/`)) ignored = !negated;
  }
  return ignored;
}
