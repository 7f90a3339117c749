#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| retry_core_fuzz::targets::scrub(data));
