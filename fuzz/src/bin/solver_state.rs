//! AFL++ target: [`pegasos_fuzz::solver_state`] on each input.

fn main() {
    afl::fuzz!(|data: &[u8]| pegasos_fuzz::solver_state(data));
}
