// The header's session line: model, tokens, both costs, quotas and a context meter.
// Fed by the `session` trait; every field is optional because a transcript may
// not have recorded it yet (or the CLI never records it).
import "../styles/quota.css";
import { h, syncChildren } from "../shared/dom";
import { num, str } from "../shared/guards";

/** One rate limit or quota as the vendor reported it (schema.RateLimit). */
export interface QuotaInfo {
  key: string;
  limitId: string;
  name: string;
  window: string;
  windowMinutes: number | null;
  kind: string;
  usedPercent: number | null;
  /** Exact decimals, as the vendor gave them (strings from the kernel). */
  used: string | null;
  limit: string | null;
  remaining: string | null;
  unit: string;
  unlimited: boolean | null;
  resetsAt: string;
  status: string;
}

export interface SessionInfo {
  model: string;
  modelRequested: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Exact decimals (the kernel sends strings); null when not known. */
  costEstimate: string | null;
  vendorCost: string | null;
  currency: string;
  priceTable: string;
  contextTokens: number | null;
  contextWindow: number | null;
  branch: string;
  quotas: QuotaInfo[];
  /** The whole run's, when a clear ended earlier conversations: theirs plus this one's. */
  total: SessionTotal | null;
}

/** A run's totals over all its conversations. */
export interface SessionTotal {
  conversations: number;
  tokens: number;
  costEstimate: string | null;
  vendorCost: string | null;
}

/** Two exact decimals added (as the kernel sends them); null when neither is known. */
function addDecimal(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return String(Number(a) + Number(b));
}

function tokenCount(u: Record<string, unknown>): number {
  return (
    num(u.input_tokens) +
    num(u.output_tokens) +
    num(u.cache_read_tokens) +
    num(u.cache_write_tokens)
  );
}

const DECIMAL = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** A money figure as sent: a decimal string (exact), or a number from an older kernel. */
export function decimal(v: unknown): string | null {
  if (typeof v === "string" && DECIMAL.test(v.trim())) return v.trim();
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

function quota(raw: unknown): QuotaInfo | null {
  if (raw === null || typeof raw !== "object") return null;
  const v = raw as Record<string, unknown>;
  const limitId = str(v.limit_id);
  if (limitId === "") return null;
  const window = str(v.window);
  return {
    key: `${limitId}/${window}`,
    limitId,
    name: str(v.name),
    window,
    windowMinutes: num(v.window_minutes, null),
    kind: str(v.kind) || "usage",
    usedPercent: num(v.used_percent, null),
    used: decimal(v.used),
    limit: decimal(v.limit),
    remaining: decimal(v.remaining),
    unit: str(v.unit),
    unlimited: typeof v.unlimited === "boolean" ? v.unlimited : null,
    resetsAt: str(v.resets_at),
    status: str(v.status),
  };
}

/** Accept whatever the trait holds; anything malformed reads as "not recorded". */
export function normalizeSession(raw: unknown): SessionInfo | null {
  if (raw === null || typeof raw !== "object") return null;
  const v = raw as Record<string, unknown>;
  const usage = (v.usage ?? {}) as Record<string, unknown>;
  const limits = Array.isArray(v.rate_limits) ? v.rate_limits : [];
  const costEstimate = decimal(v.cost_usd_estimate);
  let vendorCost = decimal(v.vendor_cost_usd);
  // A CLI that has not reported yet (a dialog waits in the first turn) says 0: that is no
  // figure beside an estimate of what the turn already cost.
  if (vendorCost !== null && Number(vendorCost) === 0 && Number(costEstimate ?? 0) > 0) {
    vendorCost = null;
  }
  let total: SessionTotal | null = null;
  if (v.earlier !== null && typeof v.earlier === "object") {
    const e = v.earlier as Record<string, unknown>;
    total = {
      conversations: num(e.conversations) + 1,
      tokens: tokenCount((e.usage ?? {}) as Record<string, unknown>) + tokenCount(usage),
      costEstimate: addDecimal(decimal(e.cost_usd_estimate), costEstimate),
      vendorCost: addDecimal(decimal(e.vendor_cost_usd), vendorCost),
    };
  }
  return {
    model: str(v.model),
    modelRequested: str(v.model_requested),
    inputTokens: num(usage.input_tokens),
    outputTokens: num(usage.output_tokens),
    cacheReadTokens: num(usage.cache_read_tokens),
    cacheWriteTokens: num(usage.cache_write_tokens),
    costEstimate,
    vendorCost,
    currency: str(v.currency) || "USD",
    priceTable: str(v.price_table),
    contextTokens: num(v.context_tokens, null),
    contextWindow: num(v.context_window, null),
    branch: str(v.branch),
    quotas: limits.map(quota).filter((q): q is QuotaInfo => q !== null),
    total,
  };
}

/** 950 → "950", 12_345 → "12.3k", 2_500_000 → "2.5M". */
export function compactCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1).replace(/\.?0+$/, "")}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

/** Dollars with enough digits to see small runs: $0.0042, $1.23. The figure is rounded
 * for the eye only; the exact decimal is in the element's title. */
export function dollars(x: number | string): string {
  const n = typeof x === "string" ? Number(x) : x;
  return n >= 1 ? `$${n.toFixed(2)}` : `$${n.toPrecision(2)}`;
}

/** At or above this share a quota warns; at or above `FULL` it reads as (nearly) spent. */
export const QUOTA_WARN = 80;
export const QUOTA_FULL = 95;

/** Vendors' words (and an error's "reached") for a limit that refuses requests now. */
const REACHED = new Set(["rejected", "exhausted", "reached"]);

const WINDOW_NAMES: Record<string, string> = { five_hour: "5h", seven_day: "7d" };

/** A short label: the vendor's name, else the window ("5h", "300 min", "primary"). */
export function quotaLabel(q: QuotaInfo): string {
  if (q.kind === "credits") return q.name || "credits";
  if (q.kind === "spend") return q.window ? `spend (${q.window})` : "spend";
  const window = WINDOW_NAMES[q.window];
  if (window) return q.name ? `${q.name} ${window}` : window;
  const length =
    q.windowMinutes === null
      ? ""
      : q.windowMinutes % 1440 === 0
        ? `${q.windowMinutes / 1440}d`
        : q.windowMinutes % 60 === 0
          ? `${q.windowMinutes / 60}h`
          : `${q.windowMinutes} min`;
  return [q.name, length || q.window].filter((p) => p !== "").join(" ") || q.kind;
}

/** `ok`, `warn` or `high`: how close to its limit a quota is, as far as the vendor says. */
export function quotaLevel(q: QuotaInfo): "ok" | "warn" | "high" {
  if (REACHED.has(q.status)) return "high";
  if (q.usedPercent !== null) {
    return q.usedPercent >= QUOTA_FULL ? "high" : q.usedPercent >= QUOTA_WARN ? "warn" : "ok";
  }
  if (q.status === "allowed_warning") return "warn";
  return "ok";
}

function quotaValue(q: QuotaInfo): string {
  if (q.usedPercent !== null) return `${Math.round(q.usedPercent)}%`;
  if (q.unlimited) return "unlimited";
  const unit = q.unit === "USD" ? "" : q.unit ? ` ${q.unit}` : "";
  const money = (s: string) => (q.unit === "USD" ? dollars(s) : s);
  if (q.used !== null && q.limit !== null) return `${money(q.used)} of ${money(q.limit)}${unit}`;
  if (q.remaining !== null) return `${money(q.remaining)}${unit} left`;
  return q.status;
}

function quotaTitle(q: QuotaInfo): string {
  const parts = [quotaLabel(q) + ":"];
  if (q.usedPercent !== null) parts.push(`${q.usedPercent}% used`);
  if (q.used !== null) parts.push(`used ${q.used}${q.unit ? ` ${q.unit}` : ""}`);
  if (q.limit !== null) parts.push(`limit ${q.limit}${q.unit ? ` ${q.unit}` : ""}`);
  if (q.remaining !== null) parts.push(`remaining ${q.remaining}${q.unit ? ` ${q.unit}` : ""}`);
  if (q.resetsAt) parts.push(`resets ${q.resetsAt}`);
  if (q.status) parts.push(`(${q.status})`);
  return parts.join(" ");
}

/** The quota meter: one compact gauge per limit, warning near the limit. */
export class QuotaMeter {
  readonly el = h("span", { class: "lw-quotas", role: "group", "aria-label": "Quotas" });
  readonly #items = new Map<string, HTMLElement>();

  set(quotas: QuotaInfo[]): void {
    const shown: HTMLElement[] = [];
    for (const q of quotas) {
      let item = this.#items.get(q.key);
      if (!item) {
        item = h(
          "span",
          { class: "lw-quota", role: "meter" },
          h("span", { class: "lw-quota-label" }),
          h("span", { class: "lw-quota-track" }, h("span", { class: "lw-quota-fill" })),
          h("span", { class: "lw-quota-value" }),
        );
        this.#items.set(q.key, item);
      }
      const level = quotaLevel(q);
      item.dataset.level = level;
      item.dataset.kind = q.kind;
      item.title = quotaTitle(q);
      item.setAttribute("aria-label", quotaLabel(q));
      const label = item.querySelector(".lw-quota-label") as HTMLElement;
      label.textContent = quotaLabel(q);
      const track = item.querySelector(".lw-quota-track") as HTMLElement;
      const fill = item.querySelector(".lw-quota-fill") as HTMLElement;
      if (q.usedPercent !== null) {
        const pct = Math.max(0, Math.min(100, q.usedPercent));
        fill.style.width = `${pct}%`;
        item.setAttribute("aria-valuenow", String(Math.round(q.usedPercent)));
        item.setAttribute("aria-valuemin", "0");
        item.setAttribute("aria-valuemax", "100");
        track.hidden = false;
      } else {
        item.removeAttribute("aria-valuenow");
        track.hidden = true;
      }
      (item.querySelector(".lw-quota-value") as HTMLElement).textContent = quotaValue(q);
      shown.push(item);
    }
    for (const key of [...this.#items.keys()]) {
      if (!quotas.some((q) => q.key === key)) this.#items.delete(key);
    }
    syncChildren(this.el, shown);
    this.el.hidden = shown.length === 0;
    const worst = quotas.map(quotaLevel);
    this.el.dataset.level = worst.includes("high")
      ? "high"
      : worst.includes("warn")
        ? "warn"
        : "ok";
  }
}

export class SessionMeter {
  readonly el = h("div", { class: "lw-session", hidden: true });
  readonly #model = h("span", { class: "lw-session-model" });
  readonly #tokens = h("span", { class: "lw-session-tokens" });
  readonly #cost = h("span", { class: "lw-session-cost" });
  readonly #estimate = h("span", { class: "lw-cost-estimate" });
  readonly #vendor = h("span", { class: "lw-cost-vendor" });
  readonly #separator = h("span", { class: "lw-cost-separator" });
  readonly #quotas = new QuotaMeter();
  readonly #bar = h("span", { class: "lw-context-fill" });
  readonly #context = h(
    "span",
    { class: "lw-context", role: "meter", "aria-label": "Context used" },
    h("span", { class: "lw-context-track" }, this.#bar),
    h("span", { class: "lw-context-label" }),
  );
  readonly #branch = h("span", { class: "lw-session-branch" });
  readonly #total = h("span", { class: "lw-session-total" });

  constructor() {
    this.#cost.append(this.#estimate, this.#separator, this.#vendor);
    this.el.append(
      this.#model,
      this.#tokens,
      this.#cost,
      this.#quotas.el,
      this.#total,
      this.#context,
      this.#branch,
    );
  }

  set(raw: unknown): void {
    const s = normalizeSession(raw);
    const tokens = s ? s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheWriteTokens : 0;
    this.el.hidden =
      s === null || (s.model === "" && tokens === 0 && s.quotas.length === 0 && s.total === null);
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

    // Both costs side by side: the estimate never stands in for what the agent reported.
    const table = s.priceTable ? ` (price table ${s.priceTable})` : "";
    this.#estimate.textContent = s.costEstimate !== null ? `≈ ${dollars(s.costEstimate)} est.` : "";
    this.#estimate.title =
      s.costEstimate !== null
        ? `Estimated from a pinned price table${table}: ${s.costEstimate} ${s.currency}; not a bill.`
        : "";
    this.#estimate.hidden = s.costEstimate === null;
    this.#vendor.textContent = s.vendorCost !== null ? `${dollars(s.vendorCost)} reported` : "";
    this.#vendor.title =
      s.vendorCost !== null ? `As the agent reported it: ${s.vendorCost} ${s.currency}.` : "";
    this.#vendor.hidden = s.vendorCost === null;
    this.#separator.hidden = this.#estimate.hidden || this.#vendor.hidden;
    this.#separator.textContent = this.#separator.hidden ? "" : " · ";
    this.#cost.hidden = s.costEstimate === null && s.vendorCost === null;
    this.#cost.title = this.#estimate.title || this.#vendor.title;

    this.#quotas.set(s.quotas);
    this.#setTotal(s.total);

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

  /** The run's totals beside this conversation's, once a clear ended an earlier one. */
  #setTotal(total: SessionTotal | null): void {
    this.#total.hidden = total === null;
    if (total === null) {
      this.#total.textContent = "";
      return;
    }
    const cost = total.costEstimate ?? total.vendorCost;
    const parts = [`session: ${compactCount(total.tokens)} tokens`];
    if (cost !== null) parts.push(`${total.costEstimate !== null ? "≈ " : ""}${dollars(cost)}`);
    this.#total.textContent = parts.join(" · ");
    this.#total.title =
      `All ${total.conversations} conversations of this run: ${total.tokens} tokens` +
      (total.costEstimate !== null ? `, estimated ${total.costEstimate} USD` : "") +
      (total.vendorCost !== null ? `, reported ${total.vendorCost} USD` : "") +
      ". The other figures are this conversation's.";
  }
}
