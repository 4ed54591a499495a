import { describe, expect, it } from "vitest";
import { compactCount, dollars, normalizeSession, SessionMeter } from "../src/meter";

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
