// The status-bar item: what the server is doing now, in one word a user can read at a
// glance (starting, checking, the agent's turn), and a click that shows the log.
//
// Every state comes from what the server already sends: the client's own state
// (starting, running, stopped), a buffer sent but not yet answered by its
// `publishDiagnostics` (checking), the dry run's and the agent's work-done progress, and
// `grounded/agentFinished`. Nothing here guesses from timers but the "checking" state's
// cap: a server that never answers a buffer must not leave a spinner forever.

import * as vscode from "vscode";

/** How long a buffer may show "checking" without an answer before the item stops saying so. */
const CHECKING_CAP_MS = 10_000;
/** The least time the status bar shows "dry run" once a dry run began. */
const DRY_RUN_SHOWN_MS = 1_200;

/** The server's states, most important first: the item shows the first that holds. */
export type Phase = "stopped" | "starting" | "agent" | "dryRun" | "checking" | "ready";

export class Status implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private base: "stopped" | "starting" | "ready" = "starting";
  private pending = new Map<string, ReturnType<typeof setTimeout>>();
  private dryRuns = 0;
  private dryRunSince: number[] = [];
  private agent: string | undefined;
  private stoppedWhy = "";

  constructor(showLogCommand: string) {
    this.item = vscode.window.createStatusBarItem("grounded.status", vscode.StatusBarAlignment.Left, 10);
    this.item.name = "grounded";
    this.item.command = showLogCommand;
    this.render();
    this.item.show();
  }

  /** The current phase, as the item shows it (the e2e test reads the text). */
  phase(): Phase {
    if (this.base === "stopped") return "stopped";
    if (this.base === "starting") return "starting";
    if (this.agent !== undefined) return "agent";
    if (this.dryRuns > 0) return "dryRun";
    if (this.pending.size > 0) return "checking";
    return "ready";
  }

  starting(): void {
    this.base = "starting";
    this.render();
  }

  running(): void {
    this.base = "ready";
    this.render();
  }

  stopped(why: string): void {
    this.base = "stopped";
    this.stoppedWhy = why;
    this.clearPending();
    this.dryRuns = 0;
    this.dryRunSince = [];
    this.agent = undefined;
    this.render();
  }

  /** A buffer was sent (opened or changed): checking until its diagnostics arrive. */
  sent(uri: string): void {
    const old = this.pending.get(uri);
    if (old) clearTimeout(old);
    this.pending.set(
      uri,
      setTimeout(() => {
        this.pending.delete(uri);
        this.render();
      }, CHECKING_CAP_MS),
    );
    this.render();
  }

  /** The server published the buffer's diagnostics. */
  answered(uri: string): void {
    const t = this.pending.get(uri);
    if (t) {
      clearTimeout(t);
      this.pending.delete(uri);
      this.render();
    }
  }

  /** The buffer was closed: nothing more will be published for it. */
  closed(uri: string): void {
    this.answered(uri);
  }

  dryRunBegan(): void {
    this.dryRuns++;
    this.dryRunSince.push(Date.now());
    this.render();
  }

  /**
   * The dry run's progress ended. The state stays on screen for at least
   * DRY_RUN_SHOWN_MS: a small project's run ends a few milliseconds after its progress
   * begins, and the status bar, re-rendered twice in one frame, never showed "dry run"
   * at all.
   */
  dryRunEnded(): void {
    const since = this.dryRunSince.shift() ?? 0;
    const left = DRY_RUN_SHOWN_MS - (Date.now() - since);
    const end = () => {
      this.dryRuns = Math.max(0, this.dryRuns - 1);
      this.render();
    };
    if (left > 0) {
      setTimeout(end, left);
    } else {
      end();
    }
  }

  /** The agent's turn runs; `what` is its last progress message. */
  agentSays(what: string): void {
    this.agent = what;
    this.render();
  }

  agentEnded(): void {
    this.agent = undefined;
    this.render();
  }

  private clearPending(): void {
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
  }

  private render(): void {
    const p = this.phase();
    this.item.backgroundColor = undefined;
    switch (p) {
      case "stopped":
        this.item.text = "$(error) grounded: stopped";
        this.item.tooltip = `The grounded server is not running${this.stoppedWhy ? `: ${this.stoppedWhy}` : ""}. Click for its log; "grounded: Restart the language server" starts it again.`;
        this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
        break;
      case "starting":
        this.item.text = "$(loading~spin) grounded: starting";
        this.item.tooltip = "The grounded server is starting (loading the corpus).";
        break;
      case "agent":
        this.item.text = "$(loading~spin) grounded: agent's turn";
        this.item.tooltip = `The grounded agent is working${this.agent ? `: ${this.agent}` : ""}. "grounded: Cancel the agent's turn" stops it.`;
        break;
      case "dryRun":
        this.item.text = "$(loading~spin) grounded: dry run";
        this.item.tooltip = "The project runs against the fake engine (findings with code dry-run).";
        break;
      case "checking":
        this.item.text = "$(loading~spin) grounded: checking";
        this.item.tooltip = "Checking the edited file against the docs.";
        break;
      case "ready":
        this.item.text = "$(check) grounded";
        this.item.tooltip = "grounded is running: files are checked as you type. Click for the server's log.";
        break;
    }
  }

  dispose(): void {
    this.clearPending();
    this.item.dispose();
  }
}
