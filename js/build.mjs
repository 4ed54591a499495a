// Bundles every widget's front end into ../lab_widget/static/ (what the widget
// classes serve as _esm and _css) and the standalone demo into dist/.
//   node build.mjs              production build, minified
//   node build.mjs --dev        unminified, inline sourcemaps
//   node build.mjs --watch      rebuild on change (pair with ANYWIDGET_HMR=1)
//   node build.mjs --serve      build, then serve this folder for demo.html
//
// bundles.json is the one list of bundles: name → entry point, built to
// <name>.js and <name>.css. The Makefile and the packaging test read it too, and
// each widget class names its bundle (lab_widget/_widgets/_base.py).
import { readFileSync } from "node:fs";
import * as esbuild from "esbuild";

const flags = new Set(process.argv.slice(2));
const dev = flags.has("--dev");

const common = {
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: !dev,
  sourcemap: dev ? "inline" : false,
  logLevel: "info",
};

// The demo is served by name, not by position: targets are added over time.
const DEMO = "dist/standalone.js";

const bundles = JSON.parse(readFileSync(new URL("./bundles.json", import.meta.url), "utf8"));

const targets = [
  ...Object.entries(bundles).map(([name, entry]) => ({
    ...common,
    entryPoints: [entry],
    outfile: `../lab_widget/static/${name}.js`,
  })),
  { ...common, entryPoints: ["src/standalone.ts"], outfile: DEMO },
];

if (flags.has("--watch") || flags.has("--serve")) {
  const contexts = await Promise.all(targets.map((options) => esbuild.context(options)));
  if (flags.has("--watch")) await Promise.all(contexts.map((ctx) => ctx.watch()));
  else await Promise.all(contexts.map((ctx) => ctx.rebuild()));
  if (flags.has("--serve")) {
    const { hosts, port } = await contexts[targets.findIndex((t) => t.outfile === DEMO)].serve({
      servedir: ".",
      host: "127.0.0.1",
    });
    console.log(`demo: http://${hosts[0]}:${port}/demo.html`);
  }
} else {
  await Promise.all(targets.map((options) => esbuild.build(options)));
}
