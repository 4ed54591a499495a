import { describe, expect, it } from "vitest";
import {
  compactCount,
  dollars,
  normalizeSession,
  quotaLabel,
  quotaLevel,
  SessionMeter,
} from "../src/chat/meter";

const SESSION = {
  model: "model-b",
  model_requested: "model-a",
  usage: {
    input_tokens: 1200,
    output_tokens: 340,
    cache_read_tokens: 50_000,
    cache_write_tokens: 800,
  },
  cost_usd_estimate: 0.0421,
  vendor_cost_usd: 0.05,
  context_tokens: 150_000,
  context_window: 200_000,
  branch: "main",
};

const part = (m: SessionMeter, cls: string) => m.el.querySelector<HTMLElement>(`.${cls}`)!;

describe("session meter", () => {
  it("formats counts and dollars compactly", () => {
    expect([950, 1234, 12_345, 2_500_000].map(compactCount)).toEqual([
      "950",
      "1.23k",
      "12.3k",
      "2.5M",
    ]);
    expect(dollars(0.004213)).toBe("$0.0042");
    expect(dollars(12.5)).toBe("$12.50");
  });

  it("reads anything malformed as not recorded", () => {
    expect(normalizeSession(null)).toBeNull();
    expect(normalizeSession("x")).toBeNull();
    const s = normalizeSession({ usage: "nope", context_tokens: "12" })!;
    expect(s.inputTokens).toBe(0);
    expect(s.contextTokens).toBeNull();
  });

  it("stays hidden until the session has a model or tokens", () => {
    const m = new SessionMeter();
    m.set(null);
    expect(m.el.hidden).toBe(true);
    m.set({ usage: {} });
    expect(m.el.hidden).toBe(true);
  });

  it("shows model, tokens, estimate beside vendor cost, context and branch", () => {
    const m = new SessionMeter();
    m.set(SESSION);
    expect(m.el.hidden).toBe(false);
    const model = part(m, "lw-session-model");
    expect(model.textContent).toBe("model-b");
    expect(model.dataset.differs).toBe("true");
    expect(model.title).toContain("requested model-a");
    expect(part(m, "lw-session-tokens").textContent).toBe("52k in · 340 out");
    expect(part(m, "lw-session-cost").textContent).toBe("≈ $0.042 est. · $0.050 reported");
    const ctx = part(m, "lw-context");
    expect(ctx.getAttribute("aria-valuenow")).toBe("75");
    expect(ctx.dataset.level).toBe("warn");
    expect(part(m, "lw-context-fill").style.width).toBe("75%");
    expect(part(m, "lw-session-branch").textContent).toBe("⎇ main");
  });

  it("hides what is unknown: no window, no cost, same model", () => {
    const m = new SessionMeter();
    m.set({
      ...SESSION,
      model_requested: "model-b",
      cost_usd_estimate: null,
      vendor_cost_usd: null,
      context_window: null,
      branch: "",
    });
    expect(part(m, "lw-session-model").dataset.differs).toBe("false");
    expect(part(m, "lw-session-cost").hidden).toBe(true);
    expect(part(m, "lw-context").hidden).toBe(true);
    expect(part(m, "lw-session-branch").hidden).toBe(true);
  });

  it("turns red near a full context", () => {
    const m = new SessionMeter();
    m.set({ ...SESSION, context_tokens: 199_000 });
    expect(part(m, "lw-context").dataset.level).toBe("high");
  });
});

describe("costs and quotas", () => {
  const QUOTAS = [
    {
      limit_id: "codex",
      window: "primary",
      window_minutes: 300,
      kind: "usage",
      used_percent: 42.5,
      resets_at: "2026-12-01T20:00:00Z",
    },
    { limit_id: "codex", window: "secondary", window_minutes: 10080, used_percent: 96 },
    { limit_id: "unified", window: "five_hour", window_minutes: 300, used_percent: 85 },
    {
      limit_id: "codex",
      window: "credits",
      kind: "credits",
      remaining: "12.34",
      unit: "credits",
    },
  ];

  it("keeps money as the exact decimal the kernel sends", () => {
    const s = normalizeSession({ cost_usd_estimate: "0.011996", vendor_cost_usd: "1E-7" })!;
    expect(s.costEstimate).toBe("0.011996");
    expect(s.vendorCost).toBe("1E-7");
    expect(normalizeSession({ vendor_cost_usd: "twelve" })!.vendorCost).toBeNull();
  });

  it("shows both costs, each with its exact figure in the title", () => {
    const m = new SessionMeter();
    m.set({
      ...SESSION,
      cost_usd_estimate: "0.036588",
      vendor_cost_usd: "0.036588",
      price_table: "2026-12-01",
    });
    expect(part(m, "lw-session-cost").textContent).toBe("≈ $0.037 est. · $0.037 reported");
    expect(part(m, "lw-cost-estimate").title).toContain("0.036588 USD");
    expect(part(m, "lw-cost-estimate").title).toContain("price table 2026-12-01");
    expect(part(m, "lw-cost-vendor").title).toContain("0.036588 USD");
    m.set({ ...SESSION, cost_usd_estimate: null, vendor_cost_usd: "0.5" });
    expect(part(m, "lw-session-cost").textContent).toBe("$0.50 reported");
  });

  it("shows one gauge per quota and warns near the limit", () => {
    const m = new SessionMeter();
    m.set({ ...SESSION, rate_limits: QUOTAS });
    const items = [...m.el.querySelectorAll<HTMLElement>(".lw-quota")];
    expect(items.map((i) => i.querySelector(".lw-quota-label")!.textContent)).toEqual([
      "5h",
      "7d",
      "5h",
      "credits",
    ]);
    expect(items.map((i) => i.querySelector(".lw-quota-value")!.textContent)).toEqual([
      "43%",
      "96%",
      "85%",
      "12.34 credits left",
    ]);
    expect(items.map((i) => i.dataset.level)).toEqual(["ok", "high", "warn", "ok"]);
    expect(items[0]!.getAttribute("aria-valuenow")).toBe("43");
    expect(items[0]!.title).toContain("resets 2026-12-01T20:00:00Z");
    expect(part(m, "lw-quotas").dataset.level).toBe("high");
    // A quota the vendor stops reporting goes; the others keep their elements.
    const first = items[0];
    m.set({ ...SESSION, rate_limits: QUOTAS.slice(0, 1) });
    expect(m.el.querySelectorAll(".lw-quota")).toHaveLength(1);
    expect(m.el.querySelector(".lw-quota")).toBe(first);
  });

  it("labels spend limits and named limits, and a spent quota is high", () => {
    const spend = quotaLabel({
      ...normalizeSession({ rate_limits: [{ limit_id: "spend_limit", kind: "spend" }] })!
        .quotas[0]!,
      window: "monthly",
    });
    expect(spend).toBe("spend (monthly)");
    const [named] = normalizeSession({
      rate_limits: [{ limit_id: "codex_other", name: "gpt-other", window_minutes: 60 }],
    })!.quotas;
    expect(quotaLabel(named!)).toBe("gpt-other 1h");
    expect(quotaLevel({ ...named!, status: "rejected" })).toBe("high");
    // A quota error names no window or share: the kind labels it, "reached" says high.
    const [refused] = normalizeSession({
      rate_limits: [{ limit_id: "usage_limit_exceeded", status: "reached", source: "error" }],
    })!.quotas;
    expect([quotaLabel(refused!), quotaLevel(refused!)]).toEqual(["usage", "high"]);
    const q = new SessionMeter();
    q.set({
      model: "m",
      rate_limits: [
        { limit_id: "spend_limit", kind: "spend", used: "5", limit: "20", unit: "USD" },
      ],
    });
    expect(q.el.querySelector(".lw-quota-value")!.textContent).toBe("$5.00 of $20.00");
  });

  it("shows quotas even before any token is counted", () => {
    const m = new SessionMeter();
    m.set({ usage: {}, rate_limits: QUOTAS.slice(0, 1) });
    expect(m.el.hidden).toBe(false);
  });
});

describe("session meter across clears and waits", () => {
  const EMPTY = { usage: {}, cost_usd_estimate: null, vendor_cost_usd: null, branch: null };

  it("stays after a clear, with the run's totals beside the new conversation's", () => {
    const m = new SessionMeter();
    m.set({
      ...EMPTY,
      earlier: {
        conversations: 2,
        usage: { input_tokens: 1000, output_tokens: 200, cache_read_tokens: 0 },
        cost_usd_estimate: "0.5",
        vendor_cost_usd: null,
      },
    });
    expect(m.el.hidden).toBe(false);
    const total = part(m, "lw-session-total");
    expect(total.hidden).toBe(false);
    expect(total.textContent).toBe("session: 1.2k tokens · ≈ $0.50");
    expect(total.title).toContain("All 3 conversations");
    m.set({ ...SESSION, earlier: { conversations: 1, usage: {}, cost_usd_estimate: "0.01" } });
    expect(part(m, "lw-session-total").textContent).toBe("session: 52.3k tokens · ≈ $0.052");
    m.set(SESSION);
    expect(part(m, "lw-session-total").hidden).toBe(true);
  });

  it("shows no reported zero beside an estimate (the CLI has not reported yet)", () => {
    const m = new SessionMeter();
    m.set({ ...SESSION, vendor_cost_usd: "0.0" });
    expect(part(m, "lw-cost-vendor").hidden).toBe(true);
    expect(part(m, "lw-session-cost").textContent).toBe("≈ $0.042 est.");
    m.set({ ...SESSION, cost_usd_estimate: null, vendor_cost_usd: "0" });
    expect(part(m, "lw-cost-vendor").textContent).toBe("$0.0 reported");
  });

  it("normalizes totals from what the kernel sends", () => {
    const s = normalizeSession({
      ...SESSION,
      earlier: { conversations: 1, usage: { input_tokens: 10 }, vendor_cost_usd: "0.2" },
    })!;
    expect(s.total).toEqual({
      conversations: 2,
      tokens: 10 + 1200 + 340 + 50_000 + 800,
      costEstimate: "0.0421",
      vendorCost: String(0.2 + 0.05),
    });
  });
});
