//! `erpdata-wasm-bindgen <module.wasm> <out-dir> <out-name>`: what
//! `wasm-bindgen --target web --no-typescript --out-dir <out-dir>
//! --out-name <out-name> <module.wasm>` writes, byte for byte.
//!
//! The wasm-bindgen CLI crate also builds its test runner (an HTTP server,
//! an HTTP client with brotli, clap, env_logger) whatever binary is asked
//! for: about twice the compiling of the generator alone, on every fresh
//! checkout. The generator is its library, `wasm-bindgen-cli-support`.

use std::process::ExitCode;

use wasm_bindgen_cli_support::Bindgen;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [module, out_dir, out_name] = args.as_slice() else {
        eprintln!("usage: erpdata-wasm-bindgen <module.wasm> <out-dir> <out-name>");
        return ExitCode::from(2);
    };
    match generate(module, out_dir, out_name) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("erpdata-wasm-bindgen: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn generate(module: &str, out_dir: &str, out_name: &str) -> anyhow::Result<()> {
    let mut bindgen = Bindgen::new();
    bindgen.web(true)?;
    // The one default of the CLI that differs from `Bindgen::new()`'s: the
    // CLI always passes its flag, which is off unless asked for.
    bindgen
        .input_path(module)
        .out_name(out_name)
        .typescript(false)
        .omit_default_module_path(false);
    bindgen.generate(out_dir)
}
