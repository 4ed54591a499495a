// Slash commands for the composer's autocomplete, without a DOM: which commands
// are offered, when the popup applies, how commands rank for what was typed,
// and what completing one does to the text.
import { isObj, str } from "../shared/guards";
import type { CommandSource, CommandSpec } from "../types";

const SOURCES: readonly CommandSource[] = ["builtin", "project", "user"];

/**
 * The `commands` trait as the composer offers it: well-formed, chat-safe only
 * (the others would strand the TUI where the widget cannot see it), one per name.
 */
export function normalizeCommands(v: unknown): CommandSpec[] {
  const seen = new Set<string>();
  const commands: CommandSpec[] = [];
  for (const raw of Array.isArray(v) ? v : []) {
    if (!isObj(raw) || raw.chat_safe === false) continue;
    const bare = str(raw.name).trim().replace(/^\/+/, "");
    if (bare === "" || /\s/.test(bare)) continue;
    const name = `/${bare}`;
    if (seen.has(name)) continue;
    seen.add(name);
    commands.push({
      name,
      description: str(raw.description),
      arg_hint: str(raw.arg_hint),
      source: SOURCES.includes(raw.source as CommandSource)
        ? (raw.source as CommandSource)
        : "builtin",
      role: raw.role === "clear" ? "clear" : null,
      chat_safe: true,
    });
  }
  return commands;
}

/** End of the first word of `text`: its first whitespace, or its end. */
function firstWordEnd(text: string): number {
  const match = /\s/.exec(text);
  return match ? match.index : text.length;
}

/**
 * The command word being typed ("/com"), or null when the popup does not apply:
 * the text does not start with "/", or the caret has left the first word.
 */
export function commandQuery(text: string, caret: number): string | null {
  if (!text.startsWith("/")) return null;
  const end = firstWordEnd(text);
  return caret <= end ? text.slice(0, end) : null;
}

/** How well a command matches; lower is better, -1 is no match. */
function tier(command: CommandSpec, query: string): number {
  const name = command.name.slice(1).toLowerCase();
  if (name === query) return 0;
  if (name.startsWith(query)) return 1;
  if (name.includes(query)) return 2;
  if (command.description.toLowerCase().includes(query)) return 3;
  if (command.arg_hint.toLowerCase().includes(query)) return 4;
  return -1;
}

function byName(a: CommandSpec, b: CommandSpec): number {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The commands matching `word` (what was typed, with or without its slash, no
 * arguments), best first: exact name, name prefix, name substring, description,
 * argument hint; ties by name. Case-insensitive. "/" alone lists every command.
 */
export function rankCommands(commands: readonly CommandSpec[], word: string): CommandSpec[] {
  const query = word.replace(/^\//, "").toLowerCase();
  const ranked: { command: CommandSpec; tier: number }[] = [];
  for (const command of commands) {
    const t = tier(command, query);
    if (t >= 0) ranked.push({ command, tier: t });
  }
  ranked.sort((a, b) => a.tier - b.tier || byName(a.command, b.command));
  return ranked.map((r) => r.command);
}

export interface Completion {
  text: string;
  /** Where the caret goes: after the space that follows the name. */
  caret: number;
}

/**
 * `text` with its first word replaced by `name` and one space, ready for
 * arguments; whatever followed the first word is kept.
 */
export function completeCommand(text: string, name: string): Completion {
  const rest = text.slice(firstWordEnd(text)).replace(/^ +/, "");
  return { text: `${name} ${rest}`, caret: name.length + 1 };
}
