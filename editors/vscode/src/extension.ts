// The grounded extension: starts `grounded serve` on stdio and hands it the settings.
//
// Everything the server does (diagnostics, quick fixes, hover, completion) comes from the
// server; this file only starts it, passes the `grounded` settings (as
// initializationOptions, and on request through workspace/configuration), and offers a
// restart command.

import * as vscode from "vscode";
import {
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
  };
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
