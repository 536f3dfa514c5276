import type { IPodFailurePolicy } from 'kubernetes-models/batch/v1/PodFailurePolicy';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';

/** shopsnap stops within seconds of SIGTERM; a grace period below this would risk a KILL mid-cleanup. */
export const MIN_GRACE_SECONDS = 60;

const UNITS: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** A Kubernetes memory quantity (`512Mi`, `1G`, `1073741824`) in bytes. */
export function quantityBytes(quantity: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(|k|M|G|T|Ki|Mi|Gi|Ti)$/.exec(String(quantity));
  if (match === null) throw new Error(`unsupported memory quantity ${JSON.stringify(quantity)}`);
  return Number(match[1]) * (UNITS[match[2] ?? ''] ?? Number.NaN);
}

/** Everything in a pod spec that breaks shopsnap's run rules: non-root, read-only root, /tmp staging, clean stop. */
export function podProblems(pod: IPodSpec | undefined): string[] {
  if (pod === undefined) return ['no pod spec'];
  const problems: string[] = [];
  if (pod.restartPolicy !== 'Never')
    problems.push('restartPolicy must be Never (retries are the Job’s, per exit code)');
  if ((pod.terminationGracePeriodSeconds ?? 30) < MIN_GRACE_SECONDS) {
    problems.push(`terminationGracePeriodSeconds must be ≥ ${MIN_GRACE_SECONDS}`);
  }
  if (pod.securityContext?.runAsNonRoot !== true) problems.push('pod securityContext.runAsNonRoot must be true');
  const user = pod.securityContext?.runAsUser;
  if (user === undefined || user === 0) problems.push('pod securityContext.runAsUser must be a non-zero uid');
  if (pod.serviceAccountName === undefined) problems.push('serviceAccountName must name shopsnap’s ServiceAccount');
  if (pod.containers.length === 0) problems.push('no container');
  for (const container of pod.containers) problems.push(...containerProblems(container, pod));
  return problems;
}

function containerProblems(container: IContainer, pod: IPodSpec): string[] {
  const where = `container ${container.name}`;
  const problems: string[] = [];
  const security = container.securityContext;
  if (security?.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem must be true`);
  if (security?.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation must be false`);
  if (!(security?.capabilities?.drop ?? []).includes('ALL')) problems.push(`${where}: capabilities must drop ALL`);
  if (security?.runAsUser === 0 || security?.runAsNonRoot === false) problems.push(`${where}: must not run as root`);
  const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
  const tmpVolume = pod.volumes?.find((volume) => volume.name === tmp?.name);
  if (tmpVolume?.emptyDir === undefined) problems.push(`${where}: /tmp must be an emptyDir (staging, read-only root)`);
  const tmpdir = container.env?.find((variable) => variable.name === 'TMPDIR')?.value;
  if (tmpdir !== undefined && tmpdir !== '/tmp') problems.push(`${where}: TMPDIR must be the /tmp emptyDir`);
  const request = container.resources?.requests?.memory;
  const limit = container.resources?.limits?.memory;
  if (request === undefined || limit === undefined) problems.push(`${where}: memory request and limit are required`);
  else if (quantityBytes(request) > quantityBytes(limit)) problems.push(`${where}: memory request exceeds its limit`);
  return problems;
}

/** A podFailurePolicy that the API server accepts and that stops retries on shopsnap's permanent exit codes. */
export function failurePolicyProblems(
  policy: IPodFailurePolicy | undefined,
  containers: readonly string[],
  permanentCodes: readonly number[],
  stopAction: 'FailJob' | 'FailIndex',
): string[] {
  if (policy === undefined) return ['podFailurePolicy is required'];
  const problems: string[] = [];
  for (const rule of policy.rules) {
    const codes = rule.onExitCodes;
    if (codes === undefined) continue;
    if (codes.containerName !== undefined && !containers.includes(codes.containerName)) {
      problems.push(`onExitCodes names container ${codes.containerName}, which the pod does not have`);
    }
    const sorted = [...new Set(codes.values)].sort((a, b) => a - b);
    if (sorted.join() !== codes.values.join()) problems.push('onExitCodes values must be ascending without repeats');
    if (codes.values.some((code) => code < 1 || code > 255)) problems.push('onExitCodes values must be 1 to 255');
  }
  const stopped = policy.rules
    .filter((rule) => rule.action === stopAction && rule.onExitCodes?.operator === 'In')
    .flatMap((rule) => rule.onExitCodes?.values ?? []);
  const missing = permanentCodes.filter((code) => !stopped.includes(code));
  if (missing.length > 0)
    problems.push(`exit codes ${missing.join(', ')} must ${stopAction} (a retry cannot fix them)`);
  const disruption = policy.rules.some(
    (rule) => rule.action === 'Ignore' && rule.onPodConditions?.some((c) => c.type === 'DisruptionTarget'),
  );
  if (!disruption) problems.push('evictions (DisruptionTarget) must be ignored, not counted as failures');
  return problems;
}
