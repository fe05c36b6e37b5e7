use erpdata::{Config, DecoderOptions, TableDecoder};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rows: u64 = args[2].parse().unwrap();
    let style = match args[3].as_str() {
        "native" => erpdata_sandbox::Style::Native,
        "mysqlnd" => erpdata_sandbox::Style::Mysqlnd,
        _ => erpdata_sandbox::Style::Strings,
    };
    let body = erpdata_sandbox::table_body_styled("sales_invoice", rows, style).unwrap();
    let config = Config::builder("https://erp.example.com/").build().unwrap();
    match args[1].as_str() {
        "gen" => {}
        "serde" => {
            serde_json::from_slice::<serde::de::IgnoredAny>(&body).unwrap();
        }
        "columns" | "arrow" => {
            let mut d = TableDecoder::new(&config, 200, DecoderOptions::default());
            let mut n = 0;
            for c in body.chunks(65536) {
                for b in d.feed(c).unwrap() {
                    n += b.num_rows;
                    if args[1] == "arrow" {
                        drop(b.into_record_batch().unwrap());
                    }
                }
            }
            let f = d.finish().unwrap();
            for b in f.batches {
                n += b.num_rows;
                if args[1] == "arrow" {
                    drop(b.into_record_batch().unwrap());
                }
            }
            assert_eq!(n as u64, rows);
        }
        _ => panic!(),
    }
}
