use arbitrary::{Arbitrary, Unstructured};
fn main() {
    let data = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    let h = retry_core_fuzz::targets::HistoryIn::arbitrary_take_rest(Unstructured::new(&data[1..])).unwrap();
    let msgs = h.render();
    println!("{}", serde_json::to_string_pretty(&msgs).unwrap());
    let out = retry_core::orphan::prune_json(&msgs).unwrap();
    println!("OUT {}", serde_json::to_string(&out.messages).unwrap());
}
