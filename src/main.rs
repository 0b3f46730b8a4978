fn main() {
    let v = crew::vault::Vault::open(std::env::args().nth(1).unwrap()).unwrap();
    let s = crew::vault::stats::VaultStats::of(&v);
    println!("{}", serde_json::to_string_pretty(&s).unwrap());
}
