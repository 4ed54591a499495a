// The schema mirror and the widget protocol, under the one name the modules import.
// New code imports from "./schema" or "./protocol" directly.
export type * from "./schema";
export type * from "./protocol";
