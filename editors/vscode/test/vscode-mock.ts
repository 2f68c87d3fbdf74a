// A stand-in for the `vscode` module, enough for the extension's bundle and
// vscode-languageclient to activate, start the real server and answer through the
// providers they register: the editor's value classes (Position, Range, InlayHint, ...),
// events the test fires, configuration over the manifest's defaults, and records of
// what the extension did (commands, providers, status bar text, settings written,
// diagnostics). What is not modelled is a catch-all that accepts any call.

import manifest from '../package.json';

type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>): { dispose(): void } => {
    this.listeners.push(listener);
    return {
      dispose: () => {
        this.listeners = this.listeners.filter((l) => l !== listener);
      },
    };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      void l(e);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

/** Accepts any property access, call or construction (returns itself). */
function catchAll(): unknown {
  const target = function () {
    /* nothing */
  };
  const proxy: unknown = new Proxy(target, {
    get: (_t, key) => (key === 'then' ? undefined : key === 'dispose' ? () => undefined : proxy),
    apply: () => proxy,
    construct: () => proxy as object,
  });
  return proxy;
}

/** An object whose missing properties are the catch-all (events: a no-op subscription). */
function partial<T extends object>(known: T): T {
  return new Proxy(known, {
    get: (t, key) => {
      if (key in t) {
        return (t as Record<string | symbol, unknown>)[key];
      }
      if (typeof key === 'string' && key.startsWith('onDid')) {
        return () => ({ dispose: () => undefined });
      }
      return catchAll();
    },
  });
}

export class Uri {
  constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  get fsPath(): string {
    return this.path;
  }
  static file(path: string): Uri {
    return new Uri('file', path);
  }
  static parse(text: string): Uri {
    const m = /^([a-z]+):\/\/(.*)$/.exec(text);
    return m ? new Uri(m[1], decodeURIComponent(m[2])) : new Uri('file', text);
  }
  toString(): string {
    return `${this.scheme}://${encodeURI(this.path)}`;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path };
  }
  with(): this {
    return this;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    if (typeof a === 'number' && typeof b === 'number') {
      this.start = new Position(a, b);
      this.end = new Position(c ?? a, d ?? b);
    } else {
      this.start = a as Position;
      this.end = b as Position;
    }
  }
}

export class MarkdownString {
  isTrusted?: boolean;
  supportHtml?: boolean;
  constructor(public value = '') {}
  appendMarkdown(text: string): this {
    this.value += text;
    return this;
  }
  appendText(text: string): this {
    this.value += text;
    return this;
  }
  appendCodeblock(code: string): this {
    this.value += `\n\`\`\`\n${code}\n\`\`\`\n`;
    return this;
  }
}

export class InlayHint {
  tooltip?: unknown;
  paddingLeft?: boolean;
  paddingRight?: boolean;
  textEdits?: unknown;
  constructor(
    readonly position: Position,
    readonly label: string | { value: string }[],
    readonly kind?: number,
  ) {}
}

export class CodeLens {
  command?: { title: string; command: string };
  constructor(readonly range: Range) {}
}

export class Hover {
  readonly contents: MarkdownString[];
  constructor(
    contents: MarkdownString | MarkdownString[],
    readonly range?: Range,
  ) {
    this.contents = Array.isArray(contents) ? contents : [contents];
  }
}

export class Diagnostic {
  code?: unknown;
  source?: string;
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity?: number,
  ) {}
}

/** An editor tab showing a text document (the client pulls diagnostics for those). */
export class TabInputText {
  constructor(readonly uri: Uri) {}
}

export class Disposable {
  constructor(private readonly f?: () => void) {}
  dispose(): void {
    this.f?.();
  }
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => {
      items.forEach((i) => i.dispose());
    });
  }
}

export class CancellationTokenSource {
  readonly token = { isCancellationRequested: false, onCancellationRequested: new EventEmitter<void>().event };
  cancel(): void {
    this.token.isCancellationRequested = true;
  }
  dispose(): void {
    /* nothing */
  }
}

/** A text document as the editor hands it to the client. */
export interface MockDocument {
  uri: Uri;
  fileName: string;
  languageId: string;
  version: number;
  isClosed: boolean;
  isDirty: boolean;
  isUntitled: boolean;
  lineCount: number;
  getText(): string;
  save(): Promise<boolean>;
}

export function document(path: string, languageId: string, text: string): MockDocument {
  return {
    uri: Uri.file(path),
    fileName: path,
    languageId,
    version: 1,
    isClosed: false,
    isDirty: false,
    isUntitled: false,
    lineCount: text.split('\n').length,
    getText: () => text,
    save: () => Promise.resolve(true),
  };
}

type Properties = Partial<Record<string, { default?: unknown }>>;
const defaults = manifest.contributes.configuration.properties as Properties;

/** What the extension did, for the test to check and to drive. */
export const recorded = {
  /** The user's `costline.*` values over the manifest's defaults (keys without `costline.`). */
  user: {} as Record<string, unknown>,
  /** The workspace's own `costline.*` values (its settings.json), over the user's. As
   * VS Code's `get` would in a trusted workspace, the stand-in always returns them: what
   * the extension does not take from an untrusted workspace, it must leave out itself. */
  workspace: {} as Record<string, unknown>,
  /** `update(key, value, target)` calls on the `costline` configuration. */
  updates: [] as [string, unknown, unknown][],
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  providers: new Map<string, Record<string, (...args: unknown[]) => unknown>>(),
  statusText: '',
  errors: [] as string[],
  output: [] as string[],
  diagnostics: new Map<string, Diagnostic[]>(),
  /** The user's choice in the next quick pick, and the answers of the next input boxes. */
  pick: undefined as ((items: { label: string }[]) => { label: string } | undefined) | undefined,
  inputs: [] as string[],
  opened: [] as unknown[],
};

export const configurationChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
/** Whether the workspace is trusted (`vscode.workspace.isTrusted`), and the event of
 * trust being granted. */
export const trust = { trusted: true };
export const trustGranted = new EventEmitter<void>();
export const documentOpened = new EventEmitter<MockDocument>();
export const textDocuments: MockDocument[] = [];
export const activeEditor: { document?: MockDocument } = {};
/** The documents shown in editor tabs. */
export const tabs: Uri[] = [];

const costlineConfiguration = {
  get: (key: string, fallback?: unknown): unknown =>
    key in recorded.workspace
      ? recorded.workspace[key]
      : key in recorded.user
        ? recorded.user[key]
        : (defaults[`costline.${key}`]?.default ?? fallback),
  has: (): boolean => true,
  inspect: (key: string) => ({
    key: `costline.${key}`,
    defaultValue: defaults[`costline.${key}`]?.default,
    globalValue: recorded.user[key],
    workspaceValue: recorded.workspace[key],
  }),
  update: (key: string, value: unknown, target: unknown): Promise<void> => {
    recorded.updates.push([key, value, target]);
    recorded.user[key] = value;
    configurationChanged.fire({ affectsConfiguration: (s) => s === 'costline' || s === `costline.${key}` });
    return Promise.resolve();
  },
};

const otherConfiguration = {
  get: (_key: string, fallback?: unknown): unknown => fallback,
  has: (): boolean => false,
  inspect: (): undefined => undefined,
  update: (): Promise<void> => Promise.resolve(),
};

function matches(selector: unknown, doc: MockDocument): number {
  const list = Array.isArray(selector) ? selector : [selector];
  return list.some((s: unknown) => {
    if (typeof s === 'string') {
      return s === doc.languageId;
    }
    const f = s as { language?: string; scheme?: string };
    return (f.language === undefined || f.language === doc.languageId) && (f.scheme === undefined || f.scheme === doc.uri.scheme);
  })
    ? 10
    : 0;
}

function diagnosticCollection(name: string): unknown {
  return partial({
    name,
    set: (uri: Uri, items: Diagnostic[] | undefined) => {
      recorded.diagnostics.set(uri.toString(), items ?? []);
    },
    delete: (uri: Uri) => recorded.diagnostics.delete(uri.toString()),
    clear: () => {
      recorded.diagnostics.clear();
    },
    get: (uri: Uri) => recorded.diagnostics.get(uri.toString()),
    has: (uri: Uri) => recorded.diagnostics.has(uri.toString()),
    forEach: () => undefined,
    dispose: () => undefined,
  });
}

const languages = partial({
  match: matches,
  createDiagnosticCollection: diagnosticCollection,
  getLanguages: () => Promise.resolve(['FortranFreeForm', 'FortranFixedForm']),
});
// Every register*Provider records its provider.
const languagesProxy = new Proxy(languages, {
  get: (t, key) => {
    if (typeof key === 'string' && /^register\w+Provider$/.test(key)) {
      return (_selector: unknown, provider: Record<string, (...args: unknown[]) => unknown>) => {
        recorded.providers.set(key.slice('register'.length), provider);
        return new Disposable();
      };
    }
    return (t as Record<string | symbol, unknown>)[key];
  },
});

const channel = (name: string): unknown =>
  partial({
    name,
    append: (s: string) => recorded.output.push(s),
    appendLine: (s: string) => recorded.output.push(s),
    show: () => undefined,
    hide: () => undefined,
    clear: () => undefined,
    replace: () => undefined,
    dispose: () => undefined,
  });

export const vscode = partial({
  version: '1.95.0',
  env: { appName: 'Visual Studio Code', language: 'en', machineId: 'test', sessionId: 'test', uiKind: 1 },
  Uri,
  Position,
  Range,
  MarkdownString,
  InlayHint,
  InlayHintKind: { Type: 1, Parameter: 2 },
  CodeLens,
  Hover,
  Diagnostic,
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  Disposable,
  EventEmitter,
  CancellationTokenSource,
  TabInputText,
  StatusBarAlignment: { Left: 1, Right: 2 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  ViewColumn: { Active: -1, Beside: -2, One: 1 },
  TextDocumentSaveReason: { Manual: 1, AfterDelay: 2, FocusOut: 3 },
  workspace: partial({
    getConfiguration: (section?: string) => (section === 'costline' ? costlineConfiguration : otherConfiguration),
    get isTrusted() {
      return trust.trusted;
    },
    onDidGrantWorkspaceTrust: trustGranted.event,
    workspaceFolders: undefined,
    textDocuments,
    notebookDocuments: [],
    onDidChangeConfiguration: configurationChanged.event,
    onDidOpenTextDocument: documentOpened.event,
    createFileSystemWatcher: () =>
      partial({
        onDidCreate: () => new Disposable(),
        onDidChange: () => new Disposable(),
        onDidDelete: () => new Disposable(),
        dispose: () => undefined,
      }),
  }),
  window: partial({
    get activeTextEditor() {
      return activeEditor.document ? { document: activeEditor.document } : undefined;
    },
    visibleTextEditors: [],
    get tabGroups() {
      return {
        all: [{ tabs: tabs.map((uri) => ({ input: new TabInputText(uri) })) }],
        onDidChangeTabs: () => new Disposable(),
      };
    },
    createOutputChannel: channel,
    createStatusBarItem: () =>
      partial({
        set text(t: string) {
          recorded.statusText = t;
        },
        get text() {
          return recorded.statusText;
        },
        show: () => undefined,
        hide: () => undefined,
        dispose: () => undefined,
      }),
    showErrorMessage: (message: string) => {
      recorded.errors.push(message);
      return Promise.resolve(undefined);
    },
    showWarningMessage: (message: string) => {
      recorded.errors.push(message);
      return Promise.resolve(undefined);
    },
    showInformationMessage: () => Promise.resolve(undefined),
    showQuickPick: (items: { label: string }[]) => Promise.resolve(recorded.pick?.(items)),
    showInputBox: (options: { validateInput?: (v: string) => unknown }) => {
      const answer = recorded.inputs.shift();
      if (answer !== undefined && options.validateInput?.(answer)) {
        return Promise.resolve(undefined);
      }
      return Promise.resolve(answer);
    },
    withProgress: (_options: unknown, task: (progress: unknown, token: unknown) => Promise<unknown>) =>
      task({ report: () => undefined }, new CancellationTokenSource().token),
  }),
  commands: partial({
    registerCommand: (id: string, f: (...args: unknown[]) => unknown) => {
      recorded.commands.set(id, f);
      return new Disposable(() => recorded.commands.delete(id));
    },
    executeCommand: (id: string, ...args: unknown[]) => {
      const f = recorded.commands.get(id);
      if (f) {
        return Promise.resolve(f(...args));
      }
      recorded.opened.push([id, ...args]);
      return Promise.resolve(undefined);
    },
  }),
  languages: languagesProxy,
  extensions: partial({ getExtension: () => undefined, all: [] }),
});
