import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CronJob, type ICronJob } from 'kubernetes-models/batch/v1/CronJob';
import { type IJob, Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap, type IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { type ISecret, Secret } from 'kubernetes-models/v1/Secret';
import { type IServiceAccount, ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { parseAllDocuments } from 'yaml';

export const KUBERNETES_DIR = fileURLToPath(new URL('../../deploy/kubernetes/', import.meta.url));

/** Every kind the deploy manifests may use, with the schema model that validates it. A new kind must be added here. */
const MODELS = {
  'batch/v1 CronJob': (data: ICronJob) => new CronJob(data),
  'batch/v1 Job': (data: IJob) => new Job(data),
  'v1 ConfigMap': (data: IConfigMap) => new ConfigMap(data),
  'v1 Secret': (data: ISecret) => new Secret(data),
  'v1 ServiceAccount': (data: IServiceAccount) => new ServiceAccount(data),
} as const;

export interface KindObjects {
  CronJob: ICronJob;
  Job: IJob;
  ConfigMap: IConfigMap;
  Secret: ISecret;
  ServiceAccount: IServiceAccount;
}

export type Manifest = {
  [K in keyof KindObjects]: { file: string; kind: K; object: KindObjects[K] };
}[keyof KindObjects];

export function manifestFiles(): string[] {
  return readdirSync(KUBERNETES_DIR)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort();
}

/** The documents of one YAML file (empty documents, e.g. a comment before the first `---`, are skipped). */
export function parseManifestText(text: string, file: string): unknown[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`);
    const value: unknown = document.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

/**
 * Checks one object against the Kubernetes OpenAPI schema of its kind (types, enums, required fields). The schema does
 * not reject unknown fields (the API server does, with strict field validation), so policy tests read every field that
 * matters by its exact name: a misspelt one reads as missing there.
 */
export function validateManifest(object: unknown): Manifest['kind'] {
  const { apiVersion, kind } = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  const key = `${String(apiVersion)} ${String(kind)}`;
  if (!Object.hasOwn(MODELS, key)) throw new Error(`unexpected kind ${key}; add its model to MODELS`);
  MODELS[key as keyof typeof MODELS](object as never).validate();
  return kind as Manifest['kind'];
}

export function loadManifests(): Manifest[] {
  return manifestFiles().flatMap((file) =>
    parseManifestText(readFileSync(join(KUBERNETES_DIR, file), 'utf8'), file).map(
      (object) => ({ file, kind: validateManifest(object), object }) as Manifest,
    ),
  );
}

export function manifestText(file: string): string {
  return readFileSync(join(KUBERNETES_DIR, file), 'utf8');
}
