// What the extension sends to the server and runs, without VS Code: the settings of
// DESIGN.md section 7 built from the editor's configuration (with what an untrusted
// workspace may not choose left out), the binary it starts, the languages it serves, the
// parameter syntax of "Set parameters", the machine list of `costline machines --format
// json` and the server's, the request of "Compare distributions" and the answer of "Run
// profile". The extension and its tests share this module, so the tests check what the
// extension really sends.

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
  defines?: Record<string, string>;
  sourceDirs?: string[];
  exclude?: string[];
  profileArguments?: string[];
  profileRanks?: number;
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
 * server then uses its default model). In an untrusted workspace (`trusted` false) the
 * server runs no compiler: `askCompiler` is false whatever the settings or the
 * workspace's costline.toml say, and no `compiler` is sent. */
export function buildSettings(get: ConfigLookup, trusted = true): CostlineSettings {
  const settings: CostlineSettings = {
    imbalanceThreshold: DEFAULT_IMBALANCE_THRESHOLD,
    findingShare: DEFAULT_FINDING_SHARE,
    askCompiler: trusted && get('askCompiler') !== false,
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
  if (trusted && typeof compiler === 'string' && compiler.trim() !== '') {
    settings.compiler = compiler.trim();
  }
  const defines = get('defines');
  if (isRecord(defines)) {
    const macros: Record<string, string> = {};
    for (const [name, value] of Object.entries(defines)) {
      if (!/^[A-Za-z_]\w*$/.test(name)) {
        continue;
      }
      if (value === true || (typeof value === 'number' && Number.isInteger(value))) {
        macros[name] = value === true ? '1' : String(value);
      } else if (typeof value === 'string' && /^\S+$/.test(value.trim())) {
        macros[name] = value.trim();
      }
    }
    if (Object.keys(macros).length > 0) {
      settings.defines = macros;
    }
  }
  for (const key of ['sourceDirs', 'exclude'] as const) {
    const list = get(key);
    if (Array.isArray(list)) {
      const words = list.filter((w): w is string => typeof w === 'string' && w.trim() !== '').map((w) => w.trim());
      if (words.length > 0) {
        settings[key] = words;
      }
    }
  }
  const args = get('profileArguments');
  if (Array.isArray(args) && args.length > 0 && args.every((a) => typeof a === 'string')) {
    settings.profileArguments = args;
  }
  const ranks = get('profileRanks');
  if (typeof ranks === 'number' && Number.isInteger(ranks) && ranks >= 1) {
    settings.profileRanks = ranks;
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

/** What `vscode.workspace.getConfiguration('costline').inspect(key)` reports of a setting. */
export interface Inspected<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/** The `costline.path` in force: a workspace's own value (workspace or folder settings)
 * only in a trusted workspace, else the user's (or remote) value; empty or blank when
 * none is set. */
export function configuredPath(inspected: Inspected<unknown> | undefined, trusted: boolean): string {
  const pick = trusted
    ? [inspected?.workspaceFolderValue, inspected?.workspaceValue, inspected?.globalValue]
    : [inspected?.globalValue];
  const value = pick.find((v) => typeof v === 'string' && v.trim() !== '');
  return typeof value === 'string' ? value.trim() : '';
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

/** The models of `costline machines --format json` (version 1): the valid ones, the
 * default as current. */
export function parseMachinesJson(stdout: string): MachineEntry[] {
  let listing: unknown;
  try {
    listing = JSON.parse(stdout);
  } catch {
    return [];
  }
  if (!isRecord(listing) || listing.version !== 1 || !Array.isArray(listing.machines)) {
    return [];
  }
  return listing.machines
    .filter(isRecord)
    .filter((m) => typeof m.name === 'string' && m.error === undefined)
    .map((m) => ({
      name: String(m.name),
      description: typeof m.description === 'string' ? m.description : '',
      detail: typeof m.source === 'string' ? m.source : '',
      current: m.default === true,
    }));
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

/** The argument of the server's `costline.compare` for a document: the problem size's
 * range (`n=16..1024`, empty: as written) and the processor counts (`4..64` or `16,64`,
 * empty: as written). The server finds the files of the modules the document uses and
 * takes the bindings in force. */
export interface CompareArgument {
  uri: string;
  params: string[];
  procs?: string;
}

export function compareArgument(uri: string, range: string | undefined, procs: string | undefined): CompareArgument {
  const argument: CompareArgument = { uri, params: [] };
  if (range && range.trim() !== '') {
    argument.params.push(range.trim());
  }
  if (procs && procs.trim() !== '') {
    argument.procs = procs.trim();
  }
  return argument;
}

/** What the server's `costline.compare` answers: compare's versioned report, its text
 * and the SVG plot (`undefined`: nothing to compare, or not an answer). */
export interface CompareResult {
  report: { version: number; comparisons: unknown[] };
  text: string;
  svg: string;
}

export function compareResult(result: unknown): CompareResult | undefined {
  if (!isRecord(result) || !isRecord(result.report) || typeof result.text !== 'string' || typeof result.svg !== 'string') {
    return undefined;
  }
  const report = result.report;
  if (report.version !== 1 || !Array.isArray(report.comparisons)) {
    return undefined;
  }
  return { report: { version: 1, comparisons: report.comparisons }, text: result.text, svg: result.svg };
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

/** What the server's `costline.runProfile` answered: whether the profile was written,
 * and what `costline profile` said (its summary, or why it failed). */
export interface ProfileResult {
  ok: boolean;
  message: string;
}

/** The answer of `costline.runProfile`, or a failure saying the answer was not one. */
export function profileResult(answer: unknown): ProfileResult {
  if (isRecord(answer) && typeof answer.ok === 'boolean') {
    return { ok: answer.ok, message: typeof answer.message === 'string' ? answer.message : '' };
  }
  return { ok: false, message: `unexpected answer ${JSON.stringify(answer)}` };
}
