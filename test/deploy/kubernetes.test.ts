import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/runner/job-file.js';
import { parseShard, selectShard } from '../../src/runner/shard.js';
import {
  type KindObjects,
  loadManifests,
  manifestFiles,
  manifestText,
  parseManifestText,
  validateManifest,
} from './manifests.js';
import { failurePolicyProblems, podProblems, quantityBytes } from './pod-rules.js';
import { EXAMPLE_SECRET_FILE, literalSecretProblems } from './secret-rules.js';

/** README "Exit codes" that no retry can fix: usage, token refused, shop frozen/locked, destination, shrink. */
const PERMANENT_EXIT_CODES = [2, 5, 6, 7, 8];

const manifests = loadManifests();

function all<K extends keyof KindObjects>(kind: K): KindObjects[K][] {
  return manifests.filter((m) => m.kind === kind).map((m) => m.object as KindObjects[K]);
}

function one<K extends keyof KindObjects>(kind: K, name: string): KindObjects[K] {
  const found = all(kind).find((object) => object.metadata?.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name} in deploy/kubernetes`);
  return found;
}

const cronJob = one('CronJob', 'shopsnap-nightly-backup');
const fleet = one('Job', 'shopsnap-fleet');
const cronPod = cronJob.spec?.jobTemplate.spec?.template.spec as IPodSpec;
const fleetPod = fleet.spec?.template.spec as IPodSpec;
const pods = [
  ['CronJob shopsnap-nightly-backup', cronPod],
  ['Job shopsnap-fleet', fleetPod],
] as const;

function envOf(pod: IPodSpec, name: string): string | undefined {
  return pod.containers[0]?.env?.find((variable) => variable.name === name)?.value;
}

/** A deep copy of `object` with the value at a dotted path (`spec.rules.0.action`) replaced. */
function withValue(object: object, path: string, value: unknown): object {
  const copy = structuredClone(object);
  const keys = path.split('.');
  const parent = keys.slice(0, -1).reduce((node: Record<string, unknown>, key) => node[key] as never, copy as never);
  parent[keys.at(-1)!] = value;
  return copy;
}

describe('deploy/kubernetes manifests against the Kubernetes schemas', () => {
  it('holds the documented manifests', () => {
    expect(manifestFiles()).toEqual(
      expect.arrayContaining([
        'configmap-jobs.yaml',
        'cronjob-nightly-backup.yaml',
        'indexed-job-fleet.yaml',
        'secret.example.yaml',
        'serviceaccount.yaml',
      ]),
    );
  });

  it.each(manifests.map((m) => [m.file, `${m.kind} ${m.object.metadata?.name}`, m.object]))(
    '%s: %s is valid',
    (_file, _name, object) => {
      expect(() => validateManifest(object)).not.toThrow();
    },
  );

  const broken: [string, object, string, unknown][] = [
    ['an unknown concurrencyPolicy', cronJob, 'spec.concurrencyPolicy', 'No'],
    ['startingDeadlineSeconds as text', cronJob, 'spec.startingDeadlineSeconds', '1h'],
    ['a pod without containers', cronJob, 'spec.jobTemplate.spec.template.spec.containers', undefined],
    ['a misspelt completionMode', fleet, 'spec.completionMode', 'indexed'],
    ['an unknown failure policy action', fleet, 'spec.podFailurePolicy.rules.0.action', 'Retry'],
    ['a memory limit that is no quantity', fleet, 'spec.template.spec.containers.0.resources.limits.memory', {}],
    ['a kind the deploy files do not use', fleet, 'kind', 'Deployment'],
  ];
  it.each(broken)('rejects %s', (_name, object, path, value) => {
    expect(() => validateManifest(withValue(object, path, value))).toThrow();
  });

  it('rejects YAML that does not parse, naming the file', () => {
    expect(() => parseManifestText('spec: [1, 2', 'broken.yaml')).toThrow(/broken\.yaml/);
  });
});

describe('run rules for every shopsnap pod', () => {
  it.each(pods)('%s: non-root, read-only root, /tmp staging, clean stop, memory bounds', (_name, pod) => {
    expect(podProblems(pod)).toEqual([]);
  });

  it.each(pods)('%s: runs as the ServiceAccount in serviceaccount.yaml, with the same image', (_name, pod) => {
    expect(all('ServiceAccount').map((account) => account.metadata?.name)).toContain(pod.serviceAccountName);
    expect(pod.containers[0]?.image).toBe(cronPod.containers[0]?.image);
    expect(pod.containers[0]?.image).not.toMatch(/:latest$|^[^:]+$/);
  });

  const unsafe: [string, string, unknown, RegExp][] = [
    ['running as root', 'securityContext.runAsNonRoot', false, /runAsNonRoot/],
    ['uid 0', 'securityContext.runAsUser', 0, /runAsUser/],
    ['the default 30 s grace period', 'terminationGracePeriodSeconds', undefined, /terminationGracePeriodSeconds/],
    ['a writable root filesystem', 'containers.0.securityContext.readOnlyRootFilesystem', false, /readOnlyRoot/],
    ['privilege escalation', 'containers.0.securityContext.allowPrivilegeEscalation', true, /allowPrivilegeEscalation/],
    ['/tmp on the root filesystem', 'containers.0.volumeMounts', [], /\/tmp must be an emptyDir/],
    ['a memory request above its limit', 'containers.0.resources.requests.memory', '4Gi', /exceeds its limit/],
    ['no memory limit', 'containers.0.resources.limits', {}, /memory request and limit/],
    ['pod restarts by the kubelet', 'restartPolicy', 'OnFailure', /restartPolicy/],
  ];
  it.each(unsafe)('finds %s', (_name, path, value, message) => {
    expect(podProblems(withValue(cronPod, path, value) as IPodSpec).join('\n')).toMatch(message);
  });

  const weakPolicies: [string, string, unknown, RegExp][] = [
    ['a permanent exit code left to retries', 'rules.1.onExitCodes.values', [2, 5, 6, 7], /8 must FailJob/],
    ['exit codes out of order', 'rules.1.onExitCodes.values', [5, 2, 6, 7, 8], /ascending/],
    ['a container the pod does not have', 'rules.1.onExitCodes.containerName', 'backup', /does not have/],
    ['evictions counted as failures', 'rules.0.action', 'Count', /DisruptionTarget/],
  ];
  it.each(weakPolicies)('finds %s in a podFailurePolicy', (_name, path, value, message) => {
    const policy = withValue(cronJob.spec?.jobTemplate.spec?.podFailurePolicy ?? {}, path, value);
    expect(failurePolicyProblems(policy as never, ['shopsnap'], PERMANENT_EXIT_CODES, 'FailJob').join('\n')).toMatch(
      message,
    );
  });

  it.each([
    ['512Mi', 512 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['1G', 1e9],
    ['1073741824', 2 ** 30],
    ['1.5Gi', 1.5 * 2 ** 30],
  ])('reads the memory quantity %s', (quantity, bytes) => {
    expect(quantityBytes(quantity)).toBe(bytes);
  });
});

describe('nightly backup CronJob', () => {
  it('never overlaps, skips a start missed by too long, and fails at once on exit codes a retry cannot fix', () => {
    expect(cronJob.spec?.concurrencyPolicy).toBe('Forbid');
    expect(cronJob.spec?.startingDeadlineSeconds).toBeGreaterThan(0);
    expect(cronJob.spec?.startingDeadlineSeconds).toBeLessThan(24 * 3600);
    const policy = cronJob.spec?.jobTemplate.spec?.podFailurePolicy;
    expect(failurePolicyProblems(policy, ['shopsnap'], PERMANENT_EXIT_CODES, 'FailJob')).toEqual([]);
  });

  it('requests the measured memory: 512Mi, limited to 1Gi', () => {
    const resources = cronPod.containers[0]?.resources;
    expect(quantityBytes(resources?.requests?.memory ?? 0)).toBe(512 * 2 ** 20);
    expect(quantityBytes(resources?.limits?.memory ?? 0)).toBe(2 ** 30);
  });

  it('backs up one shop to S3 and reads the token from a file mounted from the example Secret', () => {
    const container = cronPod.containers[0]!;
    expect(container.args).toEqual(['backup']);
    expect(envOf(cronPod, 'SHOPSNAP_SHOP')).toBeTruthy();
    expect(envOf(cronPod, 'SHOPSNAP_OUT')).toMatch(/^s3:\/\//);
    const tokenFile = envOf(cronPod, 'SHOPSNAP_TOKEN_FILE') ?? '';
    const mount = container.volumeMounts?.find((m) => tokenFile.startsWith(`${m.mountPath}/`));
    const secret = cronPod.volumes?.find((volume) => volume.name === mount?.name)?.secret;
    expect(secret?.secretName).toBeDefined();
    const key = secret?.items?.find((item) => `${mount?.mountPath}/${item.path}` === tokenFile)?.key;
    expect(Object.keys(one('Secret', secret!.secretName!).stringData ?? {})).toContain(key);
    expect((secret?.defaultMode ?? 0o644) & 0o007).toBe(0);
  });
});

describe('fleet Indexed Job', () => {
  const spec = fleet.spec!;
  const completions = spec.completions!;

  it('runs one pod per shard, each retried on its own, stopping a shard at once on unfixable exit codes', () => {
    expect(spec.completionMode).toBe('Indexed');
    expect(completions).toBe(3);
    expect(spec.parallelism).toBe(3);
    expect(spec.backoffLimitPerIndex).toBeGreaterThanOrEqual(1);
    expect(spec.maxFailedIndexes).toBeGreaterThanOrEqual(1);
    expect(spec.maxFailedIndexes).toBeLessThanOrEqual(completions);
    expect(failurePolicyProblems(spec.podFailurePolicy, ['shopsnap'], PERMANENT_EXIT_CODES, 'FailIndex')).toEqual([]);
  });

  it('sets SHOPSNAP_SHARD_COUNT to completions, so every index is one shard of the CLI’s i/n', () => {
    const count = envOf(fleetPod, 'SHOPSNAP_SHARD_COUNT');
    expect(count).toBe(String(completions));
    for (let index = 0; index < completions; index++) {
      const env = { JOB_COMPLETION_INDEX: String(index), SHOPSNAP_SHARD_COUNT: count };
      expect(parseShard(undefined, env)).toEqual({ index, count: completions });
    }
  });

  it('runs a valid job file from the ConfigMap whose every token comes from the Secret it loads', () => {
    const container = fleetPod.containers[0]!;
    const [command, path] = container.args ?? [];
    expect(command).toBe('run');
    const mount = container.volumeMounts?.find((m) => path?.startsWith(`${m.mountPath}/`));
    const configMapName = fleetPod.volumes?.find((volume) => volume.name === mount?.name)?.configMap?.name;
    const text = one('ConfigMap', configMapName ?? '').data?.[path!.slice(`${mount!.mountPath}/`.length)];
    expect(text).toBeDefined();
    const job = parseJobFile(text!, path!);
    expect(job.out).toMatch(/^s3:\/\//);
    const secretNames = (container.envFrom ?? []).map((source) => source.secretRef?.name);
    const secretKeys = secretNames.flatMap((name) => Object.keys(one('Secret', name ?? '').stringData ?? {}));
    expect(job.shops.map((shop) => shop.tokenEnv).sort()).toEqual(secretKeys.sort());
    const shards = Array.from({ length: completions }, (_, index) =>
      selectShard(job.shops, { index, count: completions }, (shop) => shop.shop),
    );
    expect(
      shards
        .flat()
        .map((shop) => shop.shop)
        .sort(),
    ).toEqual(job.shops.map((shop) => shop.shop).sort());
  });
});

describe('ServiceAccount for cloud identity', () => {
  it('is annotated for EKS IRSA and GKE Workload Identity', () => {
    const annotations = one('ServiceAccount', 'shopsnap').metadata?.annotations ?? {};
    expect(annotations['eks.amazonaws.com/role-arn']).toMatch(/^arn:aws:iam::\d{12}:role\/[\w+=,.@-]+$/);
    expect(annotations['iam.gke.io/gcp-service-account']).toMatch(/^[a-z][\w-]*@[\w-]+\.iam\.gserviceaccount\.com$/);
  });
});

describe('no credentials in the manifests', () => {
  it.each(manifestFiles())('%s holds no literal token or key', (file) => {
    const text = manifestText(file);
    expect(literalSecretProblems(file, text, parseManifestText(text, file))).toEqual([]);
  });

  it('keeps Secrets in the example file only', () => {
    expect(manifests.filter((m) => m.kind === 'Secret').map((m) => m.file)).toEqual([
      EXAMPLE_SECRET_FILE,
      EXAMPLE_SECRET_FILE,
    ]);
  });

  const leaks: [string, string, string][] = [
    ['a Shopify token in the text', 'cronjob.yaml', 'data:\n  note: shpat_0123456789abcdef0123456789abcdef\n'],
    ['a token as a plain variable', 'cronjob.yaml', 'spec:\n  env:\n    - name: SHOPSNAP_TOKEN\n      value: abc\n'],
    ['an AWS key as a plain variable', 'job.yaml', 'env:\n  - name: AWS_SECRET_ACCESS_KEY\n    value: wJalrXUtnFEMI\n'],
    ['a Secret outside the example file', 'extra.yaml', 'kind: Secret\nstringData:\n  t: EXAMPLE-NOT-A-REAL-TOKEN\n'],
    ['an example Secret with a real-looking value', EXAMPLE_SECRET_FILE, 'kind: Secret\nstringData:\n  t: 1f2e3d\n'],
    ['a base64 Secret value that is not fake', EXAMPLE_SECRET_FILE, 'kind: Secret\ndata:\n  t: c2VjcmV0\n'],
  ];
  it.each(leaks)('finds %s', (_name, file, text) => {
    expect(literalSecretProblems(file, text, parseManifestText(text, file))).not.toEqual([]);
  });
});
