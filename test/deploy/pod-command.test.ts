import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { loadManifests } from './manifests.js';

const manifests = loadManifests();

/**
 * The container's environment as Kubernetes builds it: every key of `envFrom` Secrets, literal `env` values, and for
 * a pod of an Indexed Job its JOB_COMPLETION_INDEX.
 */
function podEnvironment(pod: IPodSpec, index: number | undefined): Record<string, string> {
  const container = pod.containers[0]!;
  const env: Record<string, string> = index === undefined ? {} : { JOB_COMPLETION_INDEX: String(index) };
  for (const source of container.envFrom ?? []) {
    const secret = manifests.find((m) => m.kind === 'Secret' && m.object.metadata?.name === source.secretRef?.name);
    Object.assign(env, secret?.kind === 'Secret' ? secret.object.stringData : {});
  }
  for (const variable of container.env ?? []) if (variable.value !== undefined) env[variable.name] = variable.value;
  return env;
}

const pods = manifests.flatMap((m): [string, IPodSpec, number | undefined][] => {
  if (m.kind === 'CronJob') {
    return [[`CronJob ${m.object.metadata?.name}`, m.object.spec!.jobTemplate.spec!.template.spec!, undefined]];
  }
  if (m.kind === 'Job') {
    const last = m.object.spec?.completionMode === 'Indexed' ? (m.object.spec.completions ?? 1) - 1 : undefined;
    return [[`Job ${m.object.metadata?.name}`, m.object.spec!.template.spec!, last]];
  }
  return [];
});

describe('shopsnap (built binary) accepts each pod’s arguments and environment', () => {
  // The pods' token file and job file paths do not exist here, so each run stops in its command handler with that
  // file named, after the arguments and the command's SHOPSNAP_* variables are read; no shop is contacted.
  it.each(pods)('%s', async (_name, pod, index) => {
    const result = await runCli(pod.containers[0]!.args ?? [], { env: podEnvironment(pod, index) });
    expect(result.stderr).not.toMatch(/unknown flag|unexpected argument|shopsnap: warning/);
    expect(result.stderr).toMatch(/cannot read (the token|job) file \/(var\/run|etc)\//);
    expect(result.code).toBe(2);
  });
});
