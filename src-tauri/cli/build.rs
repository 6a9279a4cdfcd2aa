//! Links the CLI with its functions in the order a profiled run used them, when
//! `SWITCHBOARD_CLI_SYMBOL_ORDER` names lld's symbol ordering file (`scripts/build-cli.sh` makes
//! one). Without it the build is the plain one.

fn main() {
    println!("cargo:rerun-if-env-changed=SWITCHBOARD_CLI_SYMBOL_ORDER");
    let Some(order) = std::env::var_os("SWITCHBOARD_CLI_SYMBOL_ORDER") else {
        return;
    };
    let order = order.to_string_lossy();
    println!("cargo:rerun-if-changed={order}");
    for arg in [
        format!("--symbol-ordering-file={order}"),
        "--no-warn-symbol-ordering".to_owned(),
    ] {
        println!("cargo:rustc-link-arg-bin=switchboard-cli=-Wl,{arg}");
    }
}
