// Stylesheets are bundled by esbuild; importing one only has that side effect.
declare module "*.css";
