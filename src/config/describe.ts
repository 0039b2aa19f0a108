/**
 * Walks a zod schema and lists every leaf option with its default, unit and documentation, so
 * `shoal config --defaults` and docs/config.md are generated from the one schema.
 */
import { stringify } from 'yaml';
import { z } from 'zod';

/** One documented leaf option of a schema. */
export interface FieldInfo {
  /** Dotted path, e.g. `links.topicLocality`. */
  readonly path: string;
  readonly doc: string;
  readonly unit: string | undefined;
  readonly defaultValue: unknown;
  /** Type in words: `number`, `integer`, `boolean`, `string`, `one of a|b`, `list`, `map`. */
  readonly type: string;
}

interface Unwrapped {
  readonly inner: z.ZodType;
  readonly doc: string;
  readonly unit: string | undefined;
  readonly defaultValue: unknown;
}

function metaOf(s: z.ZodType): { description?: string; unit?: string } {
  return (s.meta() ?? {}) as { description?: string; unit?: string };
}

/** Strips default/optional/nullable/pipe wrappers, collecting doc, unit and default on the way. */
function unwrap(schema: z.ZodType): Unwrapped {
  let s: z.ZodType = schema;
  let doc = '';
  let unit: string | undefined;
  let defaultValue: unknown;
  for (let depth = 0; depth < 10; depth++) {
    const m = metaOf(s);
    doc ||= m.description ?? s.description ?? '';
    unit ??= m.unit;
    if (s instanceof z.ZodDefault || s instanceof z.ZodPrefault) {
      const d: unknown = s.def.defaultValue;
      if (defaultValue === undefined) defaultValue = d;
      s = s.def.innerType as z.ZodType;
    } else if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) {
      s = s.def.innerType as z.ZodType;
    } else if (s instanceof z.ZodPipe) {
      s = s.def.out as z.ZodType;
    } else {
      break;
    }
  }
  return { inner: s, doc, unit, defaultValue };
}

function typeName(s: z.ZodType): string {
  if (s instanceof z.ZodNumber)
    return s.format === 'safeint' ||
      s.def.checks?.some((c) => (c as { _zod?: { def?: { format?: string } } })._zod?.def?.format === 'safeint')
      ? 'integer'
      : 'number';
  if (s instanceof z.ZodBoolean) return 'boolean';
  if (s instanceof z.ZodString || s instanceof z.ZodStringFormat) return 'string';
  if (s instanceof z.ZodEnum) return `one of ${s.options.join('|')}`;
  if (s instanceof z.ZodLiteral) return `literal ${String(s.value)}`;
  if (s instanceof z.ZodArray) return 'list';
  if (s instanceof z.ZodRecord) return 'map';
  if (s instanceof z.ZodUnion || s instanceof z.ZodDiscriminatedUnion) return 'union';
  return 'value';
}

/** Every leaf option of an object schema (nested objects are walked, other values are leaves). */
export function listFields(schema: z.ZodType, prefix = ''): FieldInfo[] {
  const { inner } = unwrap(schema);
  if (!(inner instanceof z.ZodObject)) return [];
  const out: FieldInfo[] = [];
  for (const [key, child] of Object.entries(inner.shape as Record<string, z.ZodType>)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const u = unwrap(child);
    if (u.inner instanceof z.ZodObject) {
      out.push(...listFields(child, path));
    } else {
      out.push({ path, doc: u.doc, unit: u.unit, defaultValue: u.defaultValue, type: typeName(u.inner) });
    }
  }
  return out;
}

/** A commented YAML document with every option at its default value. */
export function defaultsYaml(schema: z.ZodType, defaults: unknown): string {
  const docs = new Map(listFields(schema).map((f) => [f.path, f]));
  const lines: string[] = [];
  const walk = (value: unknown, path: string, indent: string): void => {
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      const p = path === '' ? key : `${path}.${key}`;
      const f = docs.get(p);
      if (f !== undefined) {
        const unit = f.unit === undefined ? '' : ` [${f.unit}]`;
        lines.push(`${indent}# ${f.doc || '(undocumented)'}${unit} (${f.type})`);
      }
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && f === undefined) {
        lines.push(`${indent}${key}:`);
        walk(v, p, `${indent}  `);
      } else {
        const rendered = stringify({ [key]: v }, { lineWidth: 0 })
          .trimEnd()
          .split('\n');
        for (const r of rendered) lines.push(indent + r);
      }
    }
  };
  walk(defaults, '', '');
  return `${lines.join('\n')}\n`;
}
