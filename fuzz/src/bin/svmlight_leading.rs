//! AFL++ target: [`pegasos_fuzz::svmlight_leading`] on each input.

fn main() {
    afl::fuzz!(|data: &[u8]| pegasos_fuzz::svmlight_leading(data));
}
