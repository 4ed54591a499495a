// The anywidget entry point of ProviderAuthCard: traits in, actions out through
// channel.ts. All rendering lives in auth/card.ts.
import "../styles/auth.css";
import type { AnyModel, Render } from "@anywidget/types";
import {
  AuthCardView,
  normalizeDescriptor,
  normalizeLogin,
  normalizeStatus,
  type AuthActions,
  type AuthCardState,
} from "../auth/card";
import { ACTION_TIMEOUT_MS, ActionChannel } from "../kernel/channel";
import type { AuthActionArgs } from "../types";

export interface AuthTraits {
  provider_name: string;
  descriptor: unknown;
  status: unknown;
  status_error: string;
  pending_login: unknown;
  has_stored_key: boolean;
}

const TRAITS = [
  "provider_name",
  "descriptor",
  "status",
  "status_error",
  "pending_login",
  "has_stored_key",
] as const;

export function readState(model: AnyModel<AuthTraits>): AuthCardState {
  const name: unknown = model.get("provider_name");
  const error: unknown = model.get("status_error");
  return {
    providerName: typeof name === "string" ? name : "",
    descriptor: normalizeDescriptor(model.get("descriptor")),
    status: normalizeStatus(model.get("status")),
    statusError: typeof error === "string" ? error : "",
    pendingLogin: normalizeLogin(model.get("pending_login")),
    hasStoredKey: model.get("has_stored_key") === true,
  };
}

/** The card's actions over the model's custom messages; each settles with the kernel's result. */
export function kernelActions(
  model: AnyModel<AuthTraits>,
  timeoutMs = ACTION_TIMEOUT_MS,
): AuthActions & { dispose(): void } {
  const channel = new ActionChannel<AuthActionArgs>(model, { timeoutMs });
  return {
    refresh: () => channel.request("refresh"),
    start: (kind) => channel.request("start", { login_kind: kind }),
    cancel: () => channel.request("cancel"),
    submitCode: (code) => channel.request("submit_code", { code }),
    saveKey: (key) => channel.request("save_key", { key }),
    forgetKey: () => channel.request("forget_key"),
    logout: () => channel.request("logout"),
    dispose: () => channel.dispose(),
  };
}

const render: Render<AuthTraits> = ({ model, el }) => {
  const actions = kernelActions(model);
  const view = new AuthCardView(el, actions, readState(model));
  const onChange = () => view.setState(readState(model));
  for (const trait of TRAITS) model.on(`change:${trait}`, onChange);
  return () => {
    for (const trait of TRAITS) model.off(`change:${trait}`, onChange);
    actions.dispose();
    view.destroy();
  };
};

export default { render };
