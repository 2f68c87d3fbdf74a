// What the extension sends to the server and runs, without VS Code: the settings of
// DESIGN.md section 7 built from the editor's configuration, the languages it serves, the
// parameter syntax of "Set parameters", the list `costline machines` prints and the
// command line of "Compare distributions". The extension and its tests share this module,
// so the tests check what the extension really sends.

/** The `costline` settings the server reads (initialization options and the answer to
 * `workspace/configuration`). Keys left unset are left out. */
export interface CostlineSettings {
  machine?: string;
  params?: Record<string, number>;
  imbalanceThreshold: number;
  findingShare: number;
  fixedLineLength?: number;
  compiler?: string;
  askCompiler: boolean;
  hints: { enable: boolean };
  codeLens: { enable: boolean };
}

/** Reads one key of the `costline` configuration section (`machine`, `hints.enable`, ...),
 * as `vscode.workspace.getConfiguration('costline').get` does. */
export type ConfigLookup = (key: string) => unknown;

export const DEFAULT_IMBALANCE_THRESHOLD = 0.25;
export const DEFAULT_FINDING_SHARE = 0.02;

/** The fixed-form line lengths the server takes (gfortran's `-ffixed-line-length-N`). */
export const FIXED_LINE_LENGTHS = { min: 72, max: 1024 } as const;

/** The language ids the server gets documents of: free- and fixed-form Fortran as this
 * extension contributes them (the ids of the Modern Fortran extension) and the ids other
 * Fortran extensions use. */
export const FORTRAN_LANGUAGE_IDS = [
  'FortranFreeForm',
  'FortranFixedForm',
  'fortran',
  'fortran_free-form',
  'fortran_fixed-form',
  'fortran90',
] as const;

/** The document selector of the language client: Fortran on disk and unsaved. */
export function documentSelector(): { scheme: string; language: string }[] {
  const selector: { scheme: string; language: string }[] = [];
  for (const language of FORTRAN_LANGUAGE_IDS) {
    for (const scheme of ['file', 'untitled']) {
      selector.push({ scheme, language });
    }
  }
  return selector;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The settings the server receives for the configuration `get` reads. Values of the
 * wrong type fall back to the defaults; a machine that is empty or null is left out (the
 * server then uses its default model). */
export function buildSettings(get: ConfigLookup): CostlineSettings {
  const settings: CostlineSettings = {
    imbalanceThreshold: DEFAULT_IMBALANCE_THRESHOLD,
    findingShare: DEFAULT_FINDING_SHARE,
    askCompiler: get('askCompiler') !== false,
    hints: { enable: get('hints.enable') !== false },
    codeLens: { enable: get('codeLens.enable') !== false },
  };
  const threshold = get('imbalanceThreshold');
  if (typeof threshold === 'number' && Number.isFinite(threshold) && threshold >= 0) {
    settings.imbalanceThreshold = threshold;
  }
  const share = get('findingShare');
  if (typeof share === 'number' && Number.isFinite(share) && share >= 0 && share <= 1) {
    settings.findingShare = share;
  }
  const columns = get('fixedLineLength');
  if (
    typeof columns === 'number' &&
    Number.isInteger(columns) &&
    columns >= FIXED_LINE_LENGTHS.min &&
    columns <= FIXED_LINE_LENGTHS.max
  ) {
    settings.fixedLineLength = columns;
  }
  const compiler = get('compiler');
  if (typeof compiler === 'string' && compiler.trim() !== '') {
    settings.compiler = compiler.trim();
  }
  const machine = get('machine');
  if (typeof machine === 'string' && machine.trim() !== '') {
    settings.machine = machine.trim();
  }
  const params = get('params');
  if (isRecord(params)) {
    const bound: Record<string, number> = {};
    for (const [name, value] of Object.entries(params)) {
      if (typeof value === 'number' && Number.isInteger(value)) {
        bound[name.toLowerCase()] = value;
      }
    }
    if (Object.keys(bound).length > 0) {
      settings.params = bound;
    }
  }
  return settings;
}

/** Parses `n=1000, p=16` (commas or spaces between): the bindings, or a message saying
 * what is wrong. An empty text clears the bindings. */
export function parseParams(text: string): Record<string, number> | string {
  const params: Record<string, number> = {};
  for (const word of text.split(/[\s,]+/).filter((w) => w !== '')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(-?\d+)$/.exec(word);
    if (!m) {
      return `\`${word}\` is not NAME=INTEGER`;
    }
    params[m[1].toLowerCase()] = Number(m[2]);
  }
  return params;
}

/** `n=1000 p=16`: the bindings as "Set parameters" shows them. */
export function formatParams(params: Record<string, number> | undefined): string {
  return Object.keys(params ?? {})
    .sort()
    .map((k) => `${k}=${String(params?.[k])}`)
    .join(' ');
}

/** The status bar text: the machine model and the bindings. */
export function statusText(machine: string | undefined, params: Record<string, number> | undefined): string {
  const bindings = formatParams(params);
  return `$(dashboard) ${machine ?? 'ib-hdr'}${bindings === '' ? '' : ` · ${bindings}`}`;
}

/** A machine model as the picker shows it. */
export interface MachineEntry {
  name: string;
  description: string;
  /** Where the model comes from: its file or `shipped` (`costline machines`), its provenance (the server). */
  detail: string;
  current: boolean;
}

/** The models `costline machines` prints: `NAME [(default)]  [PATH]`, then an indented
 * description and an indented `provenance: ...` line. */
export function parseMachinesOutput(stdout: string): MachineEntry[] {
  const list: MachineEntry[] = [];
  for (const line of stdout.split(/\r?\n/)) {
    const head = /^(\S+)( \(default\))?\s+\[(.*)\]\s*$/.exec(line);
    if (head) {
      list.push({ name: head[1], description: '', detail: head[3], current: head[2] === ' (default)' });
      continue;
    }
    const last = list.at(-1);
    const text = line.trim();
    if (last && text !== '' && last.description === '' && !text.startsWith('provenance:')) {
      last.description = text;
    }
  }
  return list;
}

/** The entries of the server's `costline/machines` answer. */
export function machinesFromServer(result: unknown): MachineEntry[] {
  if (!Array.isArray(result)) {
    return [];
  }
  return result.filter(isRecord).map((m) => ({
    name: String(m.name),
    description: typeof m.description === 'string' ? m.description : '',
    detail: typeof m.provenance === 'string' ? m.provenance : '',
    current: m.current === true,
  }));
}

/** The modules a Fortran text USEs (lower case). */
export function usedModules(text: string): Set<string> {
  const used = new Set<string>();
  for (const m of text.matchAll(/^[ \t]*use[ \t]*(?:,[^:]*::|::)?[ \t]*([A-Za-z_]\w*)/gim)) {
    used.add(m[1].toLowerCase());
  }
  return used;
}

/** The modules a Fortran text defines (lower case; not `module procedure`). */
export function definedModules(text: string): Set<string> {
  const defined = new Set<string>();
  for (const m of text.matchAll(/^[ \t]*module[ \t]+([A-Za-z_]\w*)[ \t]*(?:!.*)?$/gim)) {
    if (m[1].toLowerCase() !== 'procedure') {
      defined.add(m[1].toLowerCase());
    }
  }
  return defined;
}

/** What "Compare distributions" asks `costline compare` for. */
export interface CompareRequest {
  /** The file whose DISTRIBUTEs are compared, then the files of the modules it uses. */
  files: string[];
  /** The bindings in effect (`--param NAME=VALUE`), but for the one given a range. */
  params?: Record<string, number>;
  machine?: string;
  /** `n=16..1024`: the problem size's range. */
  range?: string;
  /** `4..64` or `16,64`: the processor counts. */
  procs?: string;
  svg: string;
}

/** The arguments of `costline compare` for a request. */
export function compareArgs(r: CompareRequest): string[] {
  const args = ['compare', ...r.files];
  const ranged = r.range?.split('=')[0].trim().toLowerCase();
  for (const [name, value] of Object.entries(r.params ?? {})) {
    if (name.toLowerCase() !== ranged) {
      args.push('--param', `${name}=${String(value)}`);
    }
  }
  if (r.range && r.range.trim() !== '') {
    args.push('--param', r.range.trim());
  }
  if (r.procs && r.procs.trim() !== '') {
    args.push('--procs', r.procs.trim());
  }
  if (r.machine) {
    args.push('--machine', r.machine);
  }
  args.push('--svg', r.svg);
  return args;
}

/** Checks the range a user types for "Compare distributions": `NAME=LO..HI` or empty. */
export function checkRange(text: string): string | undefined {
  return text.trim() === '' || /^[A-Za-z_]\w*=\d+\.\.\d+$/.test(text.trim())
    ? undefined
    : 'NAME=LO..HI, e.g. n=16..1024 (or empty)';
}

/** Checks the processor counts a user types: `LO..HI`, `P,P,...` or empty. */
export function checkProcs(text: string): string | undefined {
  return text.trim() === '' || /^(\d+\.\.\d+|\d+(,\d+)*)$/.test(text.trim())
    ? undefined
    : 'LO..HI or a list, e.g. 4..64 or 16,64 (or empty)';
}
