// The grounded extension: starts `grounded serve --stdio` and hands it the settings.
//
// Everything the server does (diagnostics, quick fixes, hover, completion) comes from the
// server; this file starts it, passes the `grounded` settings (as initializationOptions,
// and on request through workspace/configuration), shows the server's state in the
// status bar and its log in the "grounded" output channel, and gives the agent a face:
// a prompt (`grounded: Ask the agent...`), a notification with a Cancel button while a
// turn runs, and one clear message when the server refuses a turn.

import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  MessageType,
  NotificationType,
  RevealOutputChannelOn,
  ServerOptions,
  ShowMessageNotification,
  ShowMessageParams,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { McpApi, McpLaunch, registerMcp } from "./mcp";
import { findServer, installAdvice, probe } from "./server";
import { Status } from "./status";

/** The server's commands (interfaces.md, "The agent in the editor"). */
const ASK = "grounded.askAgent";
const CANCEL = "grounded.cancelAgent";

/** `grounded/agentFinished`: the turn ended (its summary also comes as showMessage). */
interface Finished {
  turn?: number;
  status?: string;
  reason?: string;
  answer?: string;
  changed?: string[];
  transcript?: string;
}
const AgentFinished = new NotificationType<Finished>("grounded/agentFinished");

/** Each turn's request, by turn id, for the output channel's record of the turn. */
const requests = new Map<number, string>();
/** The request of the ask in flight, until the server answers with its turn id. */
let pendingRequest: string | undefined;
/**
 * The turn summaries the server sends as `window/showMessage` ("grounded agent: done;
 * changed ..."): the answer's own notification says the same with *Show answer*, so
 * one of them is shown, not both.
 */
const TURN_SUMMARY = /^grounded agent: (done|unchanged|failed|cancelled);/;

/**
 * Server error messages about the agent that arrived while a `grounded.askAgent` was in
 * flight: held until its answer, and dropped when the answer is the same error. The
 * server both shows the message and answers the command with it (eglot and Helix show
 * only one of the two); shown as they came, one click on *Ask grounded agent to fix
 * this* without a model gave three notifications (the message, "Request
 * workspace/executeCommand failed", and "Running the contributed command failed"). A
 * time window was not enough: on a loaded machine the answer came after it closed. The
 * server's message may also come after its answer (the two are written by different
 * tasks), so a refusal is remembered for a while and a message repeating it dropped.
 */
const heldBack: ShowMessageParams[] = [];
let asksInFlight = 0;
const recentRefusals = new Map<string, number>();
/** How long a refusal's text is remembered against a late `window/showMessage`. */
const REFUSAL_MEMORY_MS = 10_000;

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let status: Status;
/** Where the extension is installed: a platform VSIX has its server under `server/`. */
let extensionPath = "";
/** Counts calls of start(), which awaits the binary's probe before it makes a client. */
let starts = 0;
let lastTurn: number | undefined;
let agentRun: AgentRun | undefined;
/** Turns whose `grounded/agentFinished` came before the command's answer. */
const finishedTurns = new Set<number>();

function settings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration("grounded");
  return {
    docs: c.get<string>("docs") || null,
    debounceMs: c.get<number>("debounceMs"),
    dryRun: {
      enabled: c.get<boolean>("dryRun.enabled"),
      budgetMs: c.get<number>("dryRun.budgetMs"),
      idleMs: c.get<number>("dryRun.idleMs"),
    },
    agent: {
      baseUrl: c.get<string>("agent.baseUrl") || null,
      model: c.get<string>("agent.model") || null,
      apiKeyEnv: c.get<string>("agent.apiKeyEnv") || null,
      allowValidate: c.get<boolean>("agent.allowValidate"),
      transcript: c.get<string>("agent.transcript") || null,
    },
  };
}

async function openSettings(query: string): Promise<void> {
  await vscode.commands.executeCommand("workbench.action.openSettings", query);
}

/** The `scope` the extension's manifest gives each of its settings. */
let scopes: Record<string, string> = {};

/**
 * Opens the settings at one setting, by `@id:`. Where VS Code runs remote (code-server,
 * Remote-SSH), a `machine` setting is listed only under the Remote tab: opened on the
 * User tab, the e2e test saw "No Settings Found" for `grounded.agent.baseUrl`. So a
 * machine setting in a remote window opens the remote settings.
 */
async function openSetting(id: string): Promise<void> {
  const query = `@id:${id}`;
  // serverPath is machine-overridable: the e2e test found it, too, only on the Remote tab.
  const machine = scopes[id] === "machine" || scopes[id] === "machine-overridable";
  try {
    if (machine && vscode.env.remoteName) {
      await vscode.commands.executeCommand("workbench.action.openRemoteSettings", { query });
    } else {
      await vscode.commands.executeCommand("workbench.action.openGlobalSettings", { query });
    }
  } catch {
    await openSettings(query);
  }
}

/** The setting a refusal names first (the one to set), else the agent's settings. */
function settingNamed(message: string): string | undefined {
  return /grounded\.agent\.(baseUrl|model|apiKeyEnv|transcript|allowValidate)/.exec(message)?.[0];
}

/** The answers shown, by their document's URI (`grounded-agent:/turn-N answer.md`). */
const ANSWER_SCHEME = "grounded-agent";
const answers = new Map<string, string>();
/** Answers kept for *Show answer*: the oldest goes past this many. */
const ANSWERS_KEPT = 20;

/**
 * The answer of a finished turn, in a read-only Markdown preview. A read-only document of
 * the extension's own scheme, not an untitled one: opened as untitled, the answer was a
 * second, dirty tab beside its preview, and closing it asked to save it.
 */
async function showAnswer(p: Finished): Promise<void> {
  const lines = [
    `# grounded agent: ${p.status ?? "finished"}`,
    "",
    p.answer?.trim() || "(no answer)",
    "",
    "---",
    "",
    `**Why it ended:** ${p.reason ?? "not said"}`,
    "",
    `**Files changed:** ${p.changed && p.changed.length > 0 ? p.changed.join(", ") : "none"}`,
  ];
  if (p.transcript) {
    lines.push("", `**Transcript:** ${p.transcript}`);
  }
  const uri = vscode.Uri.from({ scheme: ANSWER_SCHEME, path: `/turn-${p.turn ?? "?"} answer.md` });
  answers.set(uri.toString(), lines.join("\n"));
  while (answers.size > ANSWERS_KEPT) {
    answers.delete(answers.keys().next().value as string);
  }
  try {
    await vscode.commands.executeCommand("markdown.showPreview", uri);
  } catch {
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}

/** A turn ended: its record in the output channel, and its answer offered. */
function turnFinished(p: Finished): void {
  const request = p.turn !== undefined ? requests.get(p.turn) : undefined;
  if (p.turn !== undefined) {
    requests.delete(p.turn);
  }
  output.appendLine(`agent turn ${p.turn ?? "?"}: ${p.status ?? "finished"}`);
  output.appendLine(`  request: ${request ?? "(not sent from this window)"}`);
  output.appendLine(`  reason: ${p.reason ?? ""}`);
  output.appendLine(`  changed: ${p.changed && p.changed.length > 0 ? p.changed.join(", ") : "none"}`);
  if (p.transcript) {
    output.appendLine(`  transcript: ${p.transcript}`);
  }
  output.appendLine("  answer:");
  for (const line of (p.answer ?? "").split("\n")) {
    output.appendLine(`    ${line}`);
  }
  const changed = p.changed && p.changed.length > 0 ? `changed ${p.changed.join(", ")}` : "no file changed";
  const first = (p.answer ?? "").split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  const short = first.length > 120 ? `${first.slice(0, 119)}…` : first;
  const text = `grounded agent: ${p.status ?? "finished"}; ${changed}${short ? ` — ${short}` : ""}`;
  const shown =
    p.status === "done" ? vscode.window.showInformationMessage(text, "Show answer") : vscode.window.showWarningMessage(text, "Show answer");
  void shown.then((b) => {
    if (b === "Show answer") {
      void showAnswer(p);
    }
  });
}

/**
 * One agent turn as a notification: its progress messages, and a Cancel button that
 * sends `grounded.cancelAgent`. The turn keeps running after the notification is
 * dismissed; the status bar says so until `grounded/agentFinished`.
 */
class AgentRun {
  private progress: vscode.Progress<{ message?: string }> | undefined;
  private finish: (() => void) | undefined;
  private ended = false;

  constructor(first?: string) {
    first = first?.replace(/^grounded agent:\s*/, "");
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "grounded agent", cancellable: true },
      (progress, token) => {
        this.progress = progress;
        if (first) {
          progress.report({ message: first });
        }
        token.onCancellationRequested(() => {
          void cancelTurn(true);
        });
        return new Promise<void>((resolve) => {
          this.finish = resolve;
          if (this.ended) {
            resolve();
          }
        });
      },
    );
    status.agentSays(first ?? "starting");
  }

  say(message: string): void {
    // The notification's title already says "grounded agent".
    const m = message.replace(/^grounded agent:\s*/, "");
    this.progress?.report({ message: m });
    status.agentSays(m);
  }

  end(): void {
    this.ended = true;
    this.finish?.();
  }
}

function agentBegan(message?: string): void {
  if (!agentRun) {
    agentRun = new AgentRun(message);
  }
}

function agentEnded(): void {
  agentRun?.end();
  agentRun = undefined;
  status.agentEnded();
}

async function cancelTurn(fromNotification: boolean): Promise<void> {
  if (!client || client.state !== State.Running) {
    return;
  }
  try {
    const r = (await client.sendRequest(ExecuteCommandRequest.type, {
      command: CANCEL,
      arguments: lastTurn === undefined ? [] : [{ turn: lastTurn }],
    })) as { cancelled?: boolean } | null;
    if (r?.cancelled) {
      status.agentSays("cancelling after its current step");
    } else if (!fromNotification) {
      void vscode.window.showInformationMessage("grounded: no agent turn is running.");
    }
  } catch (e) {
    output.appendLine(`${CANCEL}: ${e}`);
  }
}

function errorText(e: unknown): string {
  if (e && typeof e === "object" && "message" in e) {
    return String((e as { message: unknown }).message);
  }
  return String(e);
}

/** The server refused a turn: one message, with the button that fixes the cause. */
function refused(message: string): void {
  recentRefusals.set(message, Date.now());
  for (let i = heldBack.length - 1; i >= 0; i--) {
    if (heldBack[i].message === message) {
      heldBack.splice(i, 1);
    }
  }
  agentEnded();
  output.appendLine(`agent turn refused: ${message}`);
  const busy = /still running/.test(message);
  const setting = settingNamed(message);
  const button = busy ? "Cancel the turn" : setting ? `Set ${setting}` : "Open Settings";
  void vscode.window.showErrorMessage(message, button).then(async (b) => {
    if (b === "Cancel the turn") {
      await cancelTurn(false);
    } else if (b && setting && b === `Set ${setting}`) {
      await openSetting(setting);
    } else if (b === "Open Settings") {
      await openSettings("grounded.agent");
    }
  });
}

function show(m: ShowMessageParams): void {
  switch (m.type) {
    case MessageType.Error:
      void vscode.window.showErrorMessage(m.message);
      break;
    case MessageType.Warning:
      void vscode.window.showWarningMessage(m.message);
      break;
    default:
      void vscode.window.showInformationMessage(m.message);
  }
}

/** `window/showMessage`, holding back an agent error the command's answer may repeat. */
function showServerMessage(m: ShowMessageParams): void {
  if (TURN_SUMMARY.test(m.message)) {
    // The turn's own notification (agentFinished) says it, with *Show answer*.
    output.appendLine(m.message);
    return;
  }
  const refusedAt = recentRefusals.get(m.message);
  if (refusedAt !== undefined) {
    recentRefusals.delete(m.message);
    if (Date.now() - refusedAt < REFUSAL_MEMORY_MS) {
      return;
    }
  }
  if (asksInFlight > 0 && m.type === MessageType.Error && m.message.startsWith("grounded agent:")) {
    heldBack.push(m);
    return;
  }
  show(m);
}

/** An ask was answered: what it held back and did not repeat is shown now. */
function askSettled(): void {
  asksInFlight = Math.max(0, asksInFlight - 1);
  if (asksInFlight === 0) {
    for (const m of heldBack.splice(0)) {
      show(m);
    }
  }
}

function makeClient(command: string): LanguageClient {
  // TransportKind.stdio appends `--stdio`, as every client does for stdio servers.
  const serverOptions: ServerOptions = {
    run: { command, args: ["serve"], transport: TransportKind.stdio },
    debug: {
      command,
      args: ["serve"],
      transport: TransportKind.stdio,
      options: { env: { ...process.env, GROUNDED_LOG: "debug" } },
    },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "javascript" },
      { scheme: "file", language: "javascriptreact" },
      { scheme: "untitled", language: "javascript" },
      { scheme: "file", language: "markdown" },
    ],
    initializationOptions: settings(),
    outputChannel: output,
    // Failed requests go to the log, not to a notification each: the messages a user
    // must see the server shows itself (window/showMessage).
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    synchronize: { configurationSection: "grounded" },
    middleware: {
      didOpen: (doc, next) => {
        status.sent(doc.uri.toString());
        return next(doc);
      },
      didChange: (e, next) => {
        status.sent(e.document.uri.toString());
        return next(e);
      },
      didClose: (doc, next) => {
        status.closed(doc.uri.toString());
        return next(doc);
      },
      handleDiagnostics: (uri, diagnostics, next) => {
        status.answered(uri.toString());
        next(uri, diagnostics);
      },
      handleWorkDoneProgress: (token, params, next) => {
        // The agent's progress becomes a notification with a Cancel button (the
        // client's own rendering is a status-bar spinner nobody can cancel); the dry
        // run's stays the spinner and sets the status item.
        const key = String(token);
        if (params.kind === "begin") {
          if (/agent/.test(params.title)) {
            agentTokens.add(key);
            agentBegan(params.message);
            return;
          }
          if (/dry run/.test(params.title)) {
            dryRunTokens.add(key);
            status.dryRunBegan();
          }
        } else if (agentTokens.has(key)) {
          if (params.kind === "report" && params.message) {
            agentRun?.say(params.message);
          } else if (params.kind === "end") {
            // The turn's summary follows as a message of its own; the notification
            // with its Cancel button has nothing left to cancel.
            agentTokens.delete(key);
            agentRun?.end();
          }
          return;
        } else if (params.kind === "end" && dryRunTokens.delete(key)) {
          status.dryRunEnded();
        }
        next(token, params);
      },
      executeCommand: async (cmd, args, next) => {
        if (cmd !== ASK) {
          return next(cmd, args);
        }
        const c = client;
        if (!c) {
          return undefined;
        }
        asksInFlight++;
        try {
          const request = (args?.[0] as { request?: string } | undefined)?.request;
          pendingRequest = request;
          const r = (await c.sendRequest(ExecuteCommandRequest.type, { command: cmd, arguments: args })) as {
            turn?: number;
          } | null;
          lastTurn = r?.turn;
          if (lastTurn !== undefined && request !== undefined) {
            requests.set(lastTurn, request);
            output.appendLine(`agent turn ${lastTurn}: asked "${request}"`);
          }
          if (lastTurn === undefined || !finishedTurns.has(lastTurn)) {
            agentBegan();
          }
          return r;
        } catch (e) {
          refused(errorText(e));
          return undefined;
        } finally {
          askSettled();
        }
      },
    },
  };
  return new LanguageClient("grounded", "grounded", serverOptions, clientOptions);
}

const agentTokens = new Set<string>();
const dryRunTokens = new Set<string>();

/** Starts (or restarts) the server; a missing binary is said plainly, with the setting. */
async function start(): Promise<void> {
  if (client) {
    const old = client;
    client = undefined;
    await old.stop().catch((e) => output.appendLine(`stopping the old server: ${e}`));
  }
  agentEnded();
  const setting = vscode.workspace.getConfiguration("grounded").get<string>("serverPath") ?? "";
  const found = findServer(setting, extensionPath, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  // A missing or broken binary otherwise shows as "the server crashed 5 times", which
  // says nothing about the cause: each is one message with the path and what to do.
  const fail = (msg: string, why: string) => {
    output.appendLine(msg);
    status.stopped(why);
    void vscode.window.showErrorMessage(msg, "Open Settings").then((b) => {
      if (b) {
        void openSetting("grounded.serverPath");
      }
    });
  };
  if (!found) {
    fail(`grounded: no server binary (this extension carries none, and \`grounded\` is not on PATH). ${installAdvice()}`, "binary not found");
    return;
  }
  const named = {
    setting: `grounded.serverPath (${found.path})`,
    bundled: `the server bundled with the extension (${found.path})`,
    path: `\`grounded\` on PATH (${found.path})`,
  }[found.source];
  const gen = ++starts;
  const probed = await probe(found);
  // A newer start (serverPath changed while `--version` ran) owns the server now.
  if (gen !== starts) {
    return;
  }
  if ("reason" in probed) {
    const todo =
      found.source === "bundled"
        ? "Reinstall the extension, or set grounded.serverPath to a grounded binary."
        : found.source === "setting"
          ? "Fix or clear grounded.serverPath."
          : "Reinstall the grounded on PATH (pipx install grounded-js, npm install -g grounded-js), or set grounded.serverPath to a grounded binary.";
    fail(`grounded: ${named} cannot start: ${probed.reason}. ${todo}`, "binary cannot start");
    return;
  }
  if (probed.fixed) {
    output.appendLine(`${found.path}: ${probed.fixed}`);
  }
  const command = found.path;
  output.appendLine(`starting grounded ${probed.version}: ${named}, serve --stdio`);
  const c = makeClient(command);
  client = c;
  status.starting();
  c.onDidChangeState((e) => {
    if (client !== c) {
      return;
    }
    if (e.newState === State.Running) {
      status.running();
    } else if (e.newState === State.Starting) {
      status.starting();
    } else {
      status.stopped("see its log");
      agentEnded();
    }
  });
  try {
    await c.start();
  } catch (e) {
    output.appendLine(`the server did not start: ${errorText(e)}`);
    status.stopped(errorText(e));
    return;
  }
  // After start: these replace the client's defaults (a handler per method).
  c.onNotification(ShowMessageNotification.type, showServerMessage);
  c.onNotification(AgentFinished, (p) => {
    if (p.turn !== undefined) {
      finishedTurns.add(p.turn);
      if (!requests.has(p.turn) && pendingRequest !== undefined) {
        requests.set(p.turn, pendingRequest);
      }
    }
    turnFinished(p);
    if (lastTurn === undefined || p.turn === undefined || p.turn === lastTurn) {
      agentEnded();
    }
  });
}

// `grounded: Ask the agent...`: prompts for a request and sends it with the file and
// the selection. The server answers at once with a turn id; its edits arrive as
// workspace edits (undoable), its progress in the notification, its end as a message.
// (`grounded.askAgent` itself is registered by the language client from the server's
// executeCommandProvider, so this command has a name of its own.)
async function ask(): Promise<void> {
  if (!client || client.state !== State.Running) {
    void vscode.window.showErrorMessage("grounded: the server is not running.", "Show the log").then((b) => {
      if (b) {
        output.show(true);
      }
    });
    return;
  }
  const request = await vscode.window.showInputBox({
    title: "Ask the grounded agent",
    prompt: "What should the agent do? It reads the docs and edits the open files (each edit is undoable).",
    placeHolder: "add a footer with page numbers",
  });
  if (!request) {
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const arg: Record<string, unknown> = { request };
  if (editor) {
    arg.uri = editor.document.uri.toString();
    const s = editor.selection;
    arg.range = {
      start: { line: s.start.line, character: s.start.character },
      end: { line: s.end.line, character: s.end.character },
    };
  }
  await vscode.commands.executeCommand(ASK, arg);
}

/** What `grounded mcp` is started with: the language server's binary and `grounded.docs`. */
function mcpLaunch(context: vscode.ExtensionContext): McpLaunch {
  const c = vscode.workspace.getConfiguration("grounded");
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const found = findServer(c.get<string>("serverPath") ?? "", extensionPath, folder);
  const docs = c.get<string>("docs") ?? "";
  return {
    command: found?.path,
    folder,
    docs: docs && folder && !path.isAbsolute(docs) ? path.join(folder, docs) : docs,
    version: String(context.extension.packageJSON?.version ?? ""),
  };
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("grounded");
  extensionPath = context.extensionPath;
  scopes = Object.fromEntries(
    Object.entries(
      (context.extension.packageJSON?.contributes?.configuration?.properties ?? {}) as Record<string, { scope?: string }>,
    ).map(([k, v]) => [k, v.scope ?? "window"]),
  );
  status = new Status("grounded.showOutput");
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand("grounded.restartServer", async () => {
      await start();
      if (client?.state === State.Running) {
        vscode.window.setStatusBarMessage("grounded: server restarted", 3000);
      }
    }),
    vscode.commands.registerCommand("grounded.showOutput", () => output.show(true)),
    vscode.workspace.registerTextDocumentContentProvider(ANSWER_SCHEME, {
      provideTextDocumentContent: (uri) => answers.get(uri.toString()) ?? "This answer is no longer kept.",
    }),
    vscode.commands.registerCommand("grounded.ask", ask),
    vscode.commands.registerCommand("grounded.cancel", () => cancelTurn(false)),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration("grounded")) {
        return;
      }
      // In the log, so "why did the agent not see my model?" has an answer (the key's
      // variable is logged by name only, never its value).
      output.appendLine(`settings changed: ${JSON.stringify(settings())}`);
      // A new binary needs a new process; everything else the server reloads itself.
      if (e.affectsConfiguration("grounded.serverPath")) {
        await start();
      }
    }),
  );
  // The editor's own agent gets the MCP tools where the editor has the API (src/mcp.ts).
  let refused: string | undefined;
  const mcp = registerMcp(
    vscode as unknown as McpApi,
    () => mcpLaunch(context),
    (reason) => (refused = reason),
  );
  if (mcp) {
    context.subscriptions.push(mcp);
    output.appendLine("MCP: grounded's tools are registered with the editor's agent (grounded mcp)");
  } else if (refused !== undefined) {
    output.appendLine(`MCP: the editor refused the registration (${refused}); the tools are not registered`);
  } else {
    output.appendLine("MCP: this editor has no MCP server API (VS Code 1.101 or later has it); the tools are not registered");
  }
  await start();
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
  }
}
