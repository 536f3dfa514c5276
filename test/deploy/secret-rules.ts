/** The one file allowed to hold Secret objects, and only with values that are visibly fake. */
export const EXAMPLE_SECRET_FILE = 'secret.example.yaml';
export const FAKE_VALUE = /^EXAMPLE-NOT-A-REAL-[A-Za-z0-9-]*$/;

/** Shopify access tokens (shpat_ admin, shpca_ custom app, shppa_ private app, shpss_ shared secret) and AWS key ids. */
const CREDENTIAL_TEXT = [/\bshp(?:at|ca|pa|ss)_[0-9A-Za-z]{8,}/, /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/];
const SECRET_VARIABLE = /TOKEN|SECRET|PASSWORD|ACCESS_KEY|CREDENTIAL/i;

/** Literal credentials in one manifest file: in its text, in Secret values, or in environment variable values. */
export function literalSecretProblems(file: string, text: string, objects: readonly unknown[]): string[] {
  const problems = CREDENTIAL_TEXT.filter((pattern) => pattern.test(text)).map(
    (pattern) => `${file}: text matching ${pattern} looks like a real credential`,
  );
  for (const object of objects) {
    const { kind, stringData, data } = object as { kind?: string; stringData?: object; data?: object };
    if (kind === 'Secret') {
      if (file !== EXAMPLE_SECRET_FILE) problems.push(`${file}: Secrets belong in ${EXAMPLE_SECRET_FILE} only`);
      const values = [
        ...Object.entries(stringData ?? {}),
        ...Object.entries(data ?? {}).map(([key, value]) => [key, Buffer.from(String(value), 'base64').toString()]),
      ];
      for (const [key, value] of values) {
        if (!FAKE_VALUE.test(String(value))) problems.push(`${file}: Secret value ${key} is not a visibly fake one`);
      }
    }
    for (const variable of environmentVariables(object)) {
      if (!SECRET_VARIABLE.test(variable.name) || variable.value === undefined) continue;
      const pointsToFile = variable.name.endsWith('_FILE') && variable.value.startsWith('/');
      if (!pointsToFile) problems.push(`${file}: ${variable.name} has a literal value; take it from a Secret`);
    }
  }
  return problems;
}

/** Every `env` entry anywhere in an object (containers of pods, of job templates, of cron job templates). */
function environmentVariables(value: unknown): { name: string; value?: string }[] {
  if (Array.isArray(value)) return value.flatMap(environmentVariables);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === 'env' && Array.isArray(child) ? (child as { name: string; value?: string }[]) : environmentVariables(child),
  );
}
