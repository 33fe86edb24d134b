/**
 * Every config key from the environment (issue 31): `PINRECON_<SECTION>__<KEY>` (nested with `__`, words with `_`:
 * `PINRECON_API__MAX_REQUESTS_PER_SECOND`), top-level keys as `PINRECON_<KEY>`, and the older names
 * (`PINRECON_API_SECRET`, …) kept. A value is parsed as JSON when its key is not text and it parses, else kept as
 * text; an unknown name after `PINRECON_<SECTION>__` is refused, as an unknown key in the file is.
 */
import type { z } from 'zod';
import { ConfigError } from '../core/errors.js';

/** The older variable names → config key path, kept working. */
export const environmentOverrides: Record<string, string[]> = {
  PINRECON_API_BASE_URL: ['api', 'baseUrl'],
  PINRECON_API_IDENTIFIER: ['api', 'identifier'],
  PINRECON_API_SECRET: ['api', 'secret'],
  PINRECON_SMTP_URL: ['email', 'smtpUrl'],
  PINRECON_SMTP_PASSWORD: ['email', 'smtpPassword'],
  PINRECON_DATABASE: ['database'],
  PINRECON_TIMEZONE: ['timezone'],
  PINRECON_REPORTS_DIR: ['reports', 'outDir'],
  PINRECON_LOCK_WAIT_SECONDS: ['lockWaitSeconds'],
  PINRECON_MEMORY_LIMIT: ['memoryLimit'],
  PINRECON_HISTORY_START: ['extract', 'historyStart'],
};

/** One variable applied: its name and the key it set. */
export interface EnvironmentSetting {
  variable: string;
  keyPath: string[];
}

type AnySchema = z.core.$ZodType;
interface Def {
  type: string;
  innerType?: AnySchema;
  in?: AnySchema;
  out?: AnySchema;
  shape?: Record<string, AnySchema>;
  options?: AnySchema[];
}
const defOf = (schema: AnySchema) => schema._zod.def as unknown as Def;

/** The schema under defaults, optionals and pipes: what the value itself must be. */
function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (['default', 'prefault', 'optional', 'nullable', 'readonly'].includes(def.type) && def.innerType) {
      current = def.innerType;
    } else if (def.type === 'pipe' && def.in && def.out) {
      // z.preprocess is pipe(transform, schema): the schema is what it checks; a transform after text is text.
      current = defOf(def.in).type === 'transform' ? def.out : def.in;
    } else return current;
  }
}

/** Whether a key takes text (a string, an enum of words, a union of them): its variable is never JSON-parsed. */
function takesText(schema: AnySchema): boolean {
  const def = defOf(unwrap(schema));
  if (def.type === 'string' || def.type === 'enum' || def.type === 'literal') return true;
  if (def.type === 'union') return (def.options ?? []).every(takesText);
  return false;
}

const squash = (text: string) => text.replace(/_/g, '').toLowerCase();

/** The key of an object schema a variable's segment names (MAX_REQUESTS_PER_SECOND → maxRequestsPerSecond). */
function keyNamed(schema: AnySchema, segment: string): { key: string; schema: AnySchema } | undefined {
  const def = defOf(unwrap(schema));
  if (def.type !== 'object' || !def.shape) return undefined;
  const key = Object.keys(def.shape).find((name) => squash(name) === squash(segment));
  return key === undefined ? undefined : { key, schema: def.shape[key]! };
}

function valueFor(text: string, schema: AnySchema): unknown {
  if (takesText(schema)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function setAt(target: Record<string, unknown>, keyPath: string[], value: unknown): void {
  let node = target;
  for (const key of keyPath.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null || Array.isArray(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keyPath[keyPath.length - 1]!] = value;
}

/**
 * Sets in `target` (the file's object) every key the environment gives, older names first so the generic
 * spelling of the same key wins; returns the variables used, in that order.
 */
export function applyEnvironment(
  target: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  schema: AnySchema,
): EnvironmentSetting[] {
  const used: EnvironmentSetting[] = [];
  for (const [variable, keyPath] of Object.entries(environmentOverrides)) {
    const value = env[variable];
    if (value === undefined || value === '') continue;
    // As before: text, turned into a number by the schema where one is wanted.
    setAt(target, keyPath, value);
    used.push({ variable, keyPath });
  }
  for (const variable of Object.keys(env).sort()) {
    const value = env[variable];
    if (!variable.startsWith('PINRECON_') || value === undefined || value === '') continue;
    if (Object.hasOwn(environmentOverrides, variable)) continue;
    const segments = variable.slice('PINRECON_'.length).split('__');
    if (segments.length === 1) {
      // Only a top-level key that is not a section (PINRECON_CONFIG, PINRECON_DEBUG … are not config keys).
      const found = keyNamed(schema, segments[0]!);
      if (!found || defOf(unwrap(found.schema)).type === 'object') continue;
      setAt(target, [found.key], valueFor(value, found.schema));
      used.push({ variable, keyPath: [found.key] });
      continue;
    }
    const keyPath: string[] = [];
    let current = schema;
    for (const segment of segments) {
      const found = keyNamed(current, segment);
      if (!found) {
        const known = keyPath.length ? keyPath.join('.') : '(root)';
        const map = ['record', 'array'].includes(defOf(unwrap(current)).type);
        const prefix = variable.slice(0, variable.length - segments.slice(keyPath.length).join('__').length - 2);
        throw new ConfigError(
          map
            ? `environment variable ${variable}: ${known} is a map or list, set whole: ${prefix}='<JSON>'.`
            : `environment variable ${variable}: ${known} has no key "${segment}". ` +
                'Name a key as PINRECON_<SECTION>__<KEY> (e.g. PINRECON_API__TIMEOUT_MS), or unset it.',
          undefined,
          [...keyPath, segment].join('.'),
        );
      }
      keyPath.push(found.key);
      current = found.schema;
    }
    setAt(target, keyPath, valueFor(value, current));
    used.push({ variable, keyPath });
  }
  return used;
}
