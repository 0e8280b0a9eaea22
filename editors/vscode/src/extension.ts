// The grounded extension: starts `grounded serve` on stdio and hands it the settings.
//
// Everything the server does (diagnostics, quick fixes, hover, completion) comes from the
// server; this file only starts it, passes the `grounded` settings (as
// initializationOptions, and on request through workspace/configuration), offers a
// restart command, and prompts for agent requests (`grounded: Ask the agent...`).

import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;

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
    },
  };
}

let lastTurn: number | undefined;

// `grounded: Ask the agent...`: prompts for a request and sends it with the file and
// the selection. The server answers at once with a turn id; its edits arrive as
// workspace edits (undoable), its progress as a progress notification, its end as a
// message. (`grounded.askAgent` itself is registered by the language client from the
// server's executeCommandProvider, so this command has a name of its own.)
async function ask(): Promise<void> {
  if (!client) {
    return;
  }
  const request = await vscode.window.showInputBox({
    prompt: "Ask the grounded agent",
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
  try {
    const r = (await client.sendRequest(ExecuteCommandRequest.type, {
      command: "grounded.askAgent",
      arguments: [arg],
    })) as { turn?: number } | null;
    lastTurn = r?.turn;
  } catch (e) {
    // The server has already shown its message (no model, a turn running).
    output?.appendLine(`grounded.askAgent: ${e}`);
  }
}

function makeClient(): LanguageClient {
  const command = vscode.workspace.getConfiguration("grounded").get<string>("serverPath") || "grounded";
  const serverOptions: ServerOptions = {
    run: { command, args: ["serve"], transport: TransportKind.stdio },
    debug: {
      command,
      args: ["serve"],
      transport: TransportKind.stdio,
      options: { env: { ...process.env, GROUNDED_LOG: "debug" } },
    },
  };
  output = output ?? vscode.window.createOutputChannel("grounded");
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "javascript" },
      { scheme: "file", language: "javascriptreact" },
      { scheme: "untitled", language: "javascript" },
    ],
    initializationOptions: settings(),
    outputChannel: output,
    synchronize: { configurationSection: "grounded" },
  };
  return new LanguageClient("grounded", "grounded", serverOptions, clientOptions);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  client = makeClient();
  context.subscriptions.push(
    vscode.commands.registerCommand("grounded.restartServer", async () => {
      if (client) {
        await client.stop();
      }
      client = makeClient();
      await client.start();
      vscode.window.setStatusBarMessage("grounded: server restarted", 3000);
    }),
    vscode.commands.registerCommand("grounded.showOutput", () => output?.show(true)),
    vscode.commands.registerCommand("grounded.ask", ask),
    vscode.commands.registerCommand("grounded.cancel", async () => {
      await client?.sendRequest(ExecuteCommandRequest.type, {
        command: "grounded.cancelAgent",
        arguments: lastTurn === undefined ? [] : [{ turn: lastTurn }],
      });
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      // A new binary needs a new process; everything else the server reloads itself.
      if (e.affectsConfiguration("grounded.serverPath")) {
        await vscode.commands.executeCommand("grounded.restartServer");
      }
    }),
  );
  await client.start();
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
  }
}
