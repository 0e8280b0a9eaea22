// The editor's own agent gets grounded's MCP tools (docs/agents.md): the extension
// registers `grounded mcp` with VS Code's MCP support, so Copilot's agent mode has
// `check_code`, `get_doc` and the rest as soon as the extension is installed.
//
// The API (`vscode.lm.registerMcpServerDefinitionProvider`, `McpStdioServerDefinition`)
// came in VS Code 1.101; the extension runs from 1.82, and code-server or an older VS
// Code has no `lm` or no such function. So it is looked up at run time and declared here
// (the `@types/vscode` the extension builds against predates it): where it is missing,
// nothing is registered, and the language server runs as before.
//
// The binary is the language server's (src/server.ts): `grounded.serverPath`, the
// bundled one, `PATH`; a server started by the editor for the agent that were another
// grounded than the squiggles' would judge the same code differently.

/** The provider id, equal to `contributes.mcpServerDefinitionProviders[0].id`. */
export const PROVIDER_ID = "grounded.mcp";

/** `vscode.McpStdioServerDefinition` as far as it is used here. */
export interface StdioDefinition {
  label: string;
  command: string;
  args: string[];
  cwd?: unknown;
  env?: Record<string, string | number | null>;
  version?: string;
}

/** The parts of the `vscode` module the registration uses, present or not. */
export interface McpApi {
  lm?: {
    registerMcpServerDefinitionProvider?: (
      id: string,
      provider: {
        onDidChangeMcpServerDefinitions?: unknown;
        provideMcpServerDefinitions(token?: unknown): StdioDefinition[] | undefined;
      },
    ) => { dispose(): unknown };
  };
  McpStdioServerDefinition?: new (
    label: string,
    command: string,
    args?: string[],
    env?: Record<string, string | number | null>,
    version?: string,
  ) => StdioDefinition;
  Uri?: { file(p: string): unknown };
}

/** What the server is started with: the language server's binary and settings. */
export interface McpLaunch {
  /** The binary (src/server.ts's choice), or undefined when none is found. */
  command: string | undefined;
  /** The workspace folder the project is looked for in. */
  folder: string | undefined;
  /** `grounded.docs`, resolved against the folder ("" when unset). */
  docs: string;
  /** The extension's version, so the editor refreshes the tools after an update. */
  version: string;
}

/** The argument list of `grounded mcp` for a launch. */
export function mcpArgs(launch: McpLaunch): string[] {
  const args = ["mcp"];
  if (launch.folder) {
    args.push("--root", launch.folder);
  }
  if (launch.docs) {
    args.push("--docs", launch.docs);
  }
  return args;
}

/**
 * Registers the provider when the editor has the API; returns its disposable, or
 * undefined (and registers nothing) when it does not. `launch` is asked each time the
 * editor asks for the servers, so a changed `grounded.serverPath` is picked up.
 */
export function registerMcp(
  api: McpApi,
  launch: () => McpLaunch,
  failed: (reason: string) => void = () => {},
): { dispose(): unknown } | undefined {
  const register = api.lm?.registerMcpServerDefinitionProvider;
  const Definition = api.McpStdioServerDefinition;
  if (typeof register !== "function" || typeof Definition !== "function") {
    return undefined;
  }
  // An editor may have the function and still refuse: code-server 4.100 (VS Code 1.100)
  // throws unless the provider is declared under `modelContextServerCollections`, the
  // contribution's earlier name, and that throw, escaping `activate`, left the language
  // server never started (the VS Code end-to-end test's status bar stayed at
  // "starting"). The tools are an extra: a refusal is said, never fatal.
  try {
    return registerWith(api, Definition, launch);
  } catch (e) {
    failed(e instanceof Error ? e.message : String(e));
    return undefined;
  }
}

function registerWith(
  api: McpApi,
  Definition: NonNullable<McpApi["McpStdioServerDefinition"]>,
  launch: () => McpLaunch,
): { dispose(): unknown } {
  return api.lm!.registerMcpServerDefinitionProvider!(PROVIDER_ID, {
    provideMcpServerDefinitions() {
      const l = launch();
      if (!l.command) {
        return [];
      }
      const d = new Definition("grounded", l.command, mcpArgs(l), {}, l.version);
      if (l.folder && api.Uri) {
        d.cwd = api.Uri.file(l.folder);
      }
      return [d];
    },
  });
}
