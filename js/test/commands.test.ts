// @vitest-environment node
// The slash-command autocomplete as pure logic: what is offered, when, in which order.
import { describe, expect, it } from "vitest";
import {
  commandQuery,
  completeCommand,
  normalizeCommands,
  rankCommands,
} from "../src/chat/commands";
import type { CommandSpec } from "../src/types";

const cmd = (name: string, over: Partial<CommandSpec> = {}): CommandSpec => ({
  name,
  description: "",
  arg_hint: "",
  source: "builtin",
  role: null,
  chat_safe: true,
  ...over,
});

const names = (commands: CommandSpec[]) => commands.map((c) => c.name);

describe("normalizeCommands", () => {
  it("keeps chat-safe, well-formed commands, one per name, with defaults filled in", () => {
    expect(
      normalizeCommands([
        { name: "/compact", description: "Compact the context", arg_hint: "[instructions]" },
        { name: "/login", chat_safe: false },
        { name: "model", source: "user", role: "clear" },
        { name: "/compact", description: "a duplicate" },
        { name: "" },
        { name: "/two words" },
        "nonsense",
        null,
      ]),
    ).toEqual([
      cmd("/compact", { description: "Compact the context", arg_hint: "[instructions]" }),
      cmd("/model", { source: "user", role: "clear" }),
    ]);
  });

  it("takes anything that is not a list as no commands", () => {
    expect(normalizeCommands(undefined)).toEqual([]);
    expect(normalizeCommands({ name: "/x" })).toEqual([]);
  });
});

describe("commandQuery", () => {
  it("is the first word while the text starts with / and the caret is in that word", () => {
    expect(commandQuery("/", 1)).toBe("/");
    expect(commandQuery("/com", 4)).toBe("/com");
    expect(commandQuery("/com", 2)).toBe("/com");
    expect(commandQuery("/model opus", 6)).toBe("/model");
  });

  it("does not apply past the first word, or without a leading /", () => {
    expect(commandQuery("/model opus", 7)).toBeNull();
    expect(commandQuery("/model ", 7)).toBeNull();
    expect(commandQuery(" /model", 7)).toBeNull();
    expect(commandQuery("see /model", 10)).toBeNull();
    expect(commandQuery("", 0)).toBeNull();
  });
});

describe("rankCommands", () => {
  const commands = [
    cmd("/review", { description: "Review a pull request", arg_hint: "[pr]" }),
    cmd("/compact", { description: "Summarise the conversation", arg_hint: "[instructions]" }),
    cmd("/cost", { description: "Show the cost of the session" }),
    cmd("/co", { description: "Check out a branch" }),
    cmd("/recompile", { description: "Build again" }),
    cmd("/model", { description: "Switch the model", arg_hint: "[compact|full]" }),
    cmd("/Config", { description: "Open the settings" }),
    cmd("/help", { description: "Show help" }),
  ];

  it("ranks exact name, prefix, substring, description, then argument hint", () => {
    const tiers = [
      cmd("/tail", { arg_hint: "[log file]" }),
      cmd("/history", { description: "Show the LOG of the session" }),
      cmd("/blog", { description: "Write a post" }),
      cmd("/logout"),
      cmd("/login"),
      cmd("/log"),
      cmd("/zzz", { description: "Nothing to do with it" }),
    ];
    expect(names(rankCommands(tiers, "/log"))).toEqual([
      "/log", // exact
      "/login", // prefixes, by name
      "/logout",
      "/blog", // substring
      "/history", // description
      "/tail", // argument hint
    ]);
  });

  it("ranks a realistic list", () => {
    expect(names(rankCommands(commands, "/co"))).toEqual([
      "/co",
      "/compact",
      "/Config",
      "/cost",
      "/recompile",
      "/model", // only its argument hint mentions "co"
    ]);
    expect(names(rankCommands(commands, "/comp"))).toEqual(["/compact", "/recompile", "/model"]);
    expect(names(rankCommands(commands, "/pull"))).toEqual(["/review"]);
  });

  it("is case-insensitive and ignores the slash", () => {
    expect(names(rankCommands(commands, "/CONF"))).toEqual(["/Config"]);
    expect(names(rankCommands(commands, "conf"))).toEqual(["/Config"]);
    expect(names(rankCommands(commands, "/SETTINGS"))).toEqual(["/Config"]);
  });

  it("lists every command, by name, for a bare slash", () => {
    expect(names(rankCommands(commands, "/"))).toEqual([
      "/co",
      "/compact",
      "/Config",
      "/cost",
      "/help",
      "/model",
      "/recompile",
      "/review",
    ]);
  });

  it("finds nothing for nothing that matches", () => {
    expect(rankCommands(commands, "/zzz")).toEqual([]);
    expect(rankCommands([], "/")).toEqual([]);
  });

  it("ranks 500 commands for a 2-character prefix well within a frame", () => {
    const words = ["alpha", "beta", "gamma", "delta", "echo", "fox", "golf", "hotel", "india"];
    const many = Array.from({ length: 500 }, (_, i) =>
      cmd(`/${words[i % words.length]}-${(i * 7919).toString(36)}`, {
        description: `Does ${words[(i * 3) % words.length]} things number ${i}`,
        arg_hint: i % 4 === 0 ? "[target]" : "",
        source: i % 3 === 0 ? "project" : "builtin",
      }),
    );
    const times: number[] = [];
    let found = 0;
    for (let run = 0; run < 50; run++) {
      const start = performance.now();
      found = rankCommands(many, "/de").length;
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const median = (times[24]! + times[25]!) / 2;
    console.log(
      `rankCommands: 500 commands, prefix "/de": median ${median.toFixed(3)} ms, ` +
        `max ${times[times.length - 1]!.toFixed(3)} ms over 50 runs (${found} matches)`,
    );
    expect(found).toBeGreaterThan(0);
    expect(median).toBeLessThan(16);
  });
});

describe("completeCommand", () => {
  it("replaces the first word and leaves the caret after one space", () => {
    expect(completeCommand("/comp", "/compact")).toEqual({ text: "/compact ", caret: 9 });
    expect(completeCommand("/", "/help")).toEqual({ text: "/help ", caret: 6 });
  });

  it("keeps what followed the first word", () => {
    expect(completeCommand("/mo opus", "/model")).toEqual({ text: "/model opus", caret: 7 });
    expect(completeCommand("/mo   opus", "/model")).toEqual({ text: "/model opus", caret: 7 });
  });
});
