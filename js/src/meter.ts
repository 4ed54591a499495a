// The header's session line: model, tokens, estimated cost and a context meter.
// Fed by the `session` trait; every field is optional because a transcript may
// not have recorded it yet (or the CLI never records it).
import { h } from "./dom";

export interface SessionInfo {
  model: string;
  modelRequested: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costEstimate: number | null;
  vendorCost: number | null;
  contextTokens: number | null;
  contextWindow: number | null;
  branch: string;
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const opt = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Accept whatever the trait holds; anything malformed reads as "not recorded". */
export function normalizeSession(raw: unknown): SessionInfo | null {
  if (raw === null || typeof raw !== "object") return null;
  const v = raw as Record<string, unknown>;
  const usage = (v.usage ?? {}) as Record<string, unknown>;
  return {
    model: str(v.model),
    modelRequested: str(v.model_requested),
    inputTokens: num(usage.input_tokens),
    outputTokens: num(usage.output_tokens),
    cacheReadTokens: num(usage.cache_read_tokens),
    cacheWriteTokens: num(usage.cache_write_tokens),
    costEstimate: opt(v.cost_usd_estimate),
    vendorCost: opt(v.vendor_cost_usd),
    contextTokens: opt(v.context_tokens),
    contextWindow: opt(v.context_window),
    branch: str(v.branch),
  };
}

/** 950 → "950", 12_345 → "12.3k", 2_500_000 → "2.5M". */
export function compactCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1).replace(/\.?0+$/, "")}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

/** Dollars with enough digits to see small runs: $0.0042, $1.23. */
export function dollars(x: number): string {
  return x >= 1 ? `$${x.toFixed(2)}` : `$${x.toPrecision(2)}`;
}

export class SessionMeter {
  readonly el = h("div", { class: "lw-session", hidden: true });
  readonly #model = h("span", { class: "lw-session-model" });
  readonly #tokens = h("span", { class: "lw-session-tokens" });
  readonly #cost = h("span", { class: "lw-session-cost" });
  readonly #bar = h("span", { class: "lw-context-fill" });
  readonly #context = h(
    "span",
    { class: "lw-context", role: "meter", "aria-label": "Context used" },
    h("span", { class: "lw-context-track" }, this.#bar),
    h("span", { class: "lw-context-label" }),
  );
  readonly #branch = h("span", { class: "lw-session-branch" });

  constructor() {
    this.el.append(this.#model, this.#tokens, this.#cost, this.#context, this.#branch);
  }

  set(raw: unknown): void {
    const s = normalizeSession(raw);
    const tokens = s ? s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheWriteTokens : 0;
    this.el.hidden = s === null || (s.model === "" && tokens === 0);
    if (s === null) return;

    this.#model.textContent = s.model || s.modelRequested;
    this.#model.hidden = this.#model.textContent === "";
    // The answering model can differ from the requested one (a fallback, an alias).
    const differs = s.modelRequested !== "" && s.model !== "" && s.modelRequested !== s.model;
    this.#model.dataset.differs = String(differs);
    this.#model.title = differs ? `requested ${s.modelRequested}, answered by ${s.model}` : "";

    this.#tokens.textContent = `${compactCount(s.inputTokens + s.cacheReadTokens + s.cacheWriteTokens)} in · ${compactCount(s.outputTokens)} out`;
    this.#tokens.title =
      `input ${s.inputTokens}, output ${s.outputTokens}, ` +
      `cache read ${s.cacheReadTokens}, cache write ${s.cacheWriteTokens}`;
    this.#tokens.hidden = tokens === 0;

    const parts: string[] = [];
    if (s.costEstimate !== null) parts.push(`≈ ${dollars(s.costEstimate)} est.`);
    if (s.vendorCost !== null) parts.push(`${dollars(s.vendorCost)} reported`);
    this.#cost.textContent = parts.join(" · ");
    this.#cost.title =
      s.costEstimate !== null
        ? "Estimated from a pinned price table; not a bill."
        : "Cost as reported by the agent.";
    this.#cost.hidden = parts.length === 0;

    const label = this.#context.querySelector(".lw-context-label") as HTMLElement;
    if (s.contextTokens !== null && s.contextWindow) {
      const share = Math.min(1, s.contextTokens / s.contextWindow);
      const pct = Math.round(share * 100);
      this.#bar.style.width = `${pct}%`;
      this.#context.dataset.level = share >= 0.9 ? "high" : share >= 0.7 ? "warn" : "ok";
      this.#context.setAttribute("aria-valuenow", String(pct));
      this.#context.setAttribute("aria-valuemin", "0");
      this.#context.setAttribute("aria-valuemax", "100");
      label.textContent = `${pct}% context`;
      this.#context.title = `${s.contextTokens} of ${s.contextWindow} tokens of context`;
      this.#context.hidden = false;
    } else {
      this.#context.hidden = true;
    }

    this.#branch.textContent = s.branch ? `⎇ ${s.branch}` : "";
    this.#branch.hidden = s.branch === "";
  }
}
