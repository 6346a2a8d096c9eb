//! Series filters (region, busiest) and the Parquet series: what they keep and write, checked
//! against the unfiltered series and the CSV of the same run.

use fabricsim::series_stream::{PortFilter, SeriesFiles};
use fabricsim::{Error, Plan, Scenario, Time};
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::collections::HashMap;

fn plan(toml: &str) -> Plan {
    Plan::new(&Scenario::from_toml_str(toml).unwrap()).unwrap()
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("fabricsim-series-files-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

const TORUS: &str = "[topology]\nshape = [4, 4]\n[workload]\ntype = \"tornado\"\nload = 0.4\n";

fn filter(region: &[&str], busiest: Option<usize>) -> PortFilter {
    PortFilter { items: Vec::new(), region: region.iter().map(|s| s.to_string()).collect(), busiest }
}

/// A series file alone.
fn files(path: &std::path::Path) -> SeriesFiles<'_> {
    SeriesFiles { series: Some(path), trace: None }
}

fn config_error(r: Result<impl Sized, Error>) -> String {
    match r {
        Err(Error::Config(e)) => e.to_string(),
        Err(other) => panic!("not a configuration error: {other}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn a_region_keeps_the_ports_of_the_routers_inside_its_box() {
    let p = plan(TORUS);
    let every = Time::from_ns(500);
    let (_, all) = p.run_with_series(every, |_| {}).unwrap();
    let (_, boxed) = p.run_with_series_filtered(every, &filter(&["d0=1..2", "d1=3"], None), |_| {}).unwrap();
    // Routers are numbered with the first axis fastest: (1,3) and (2,3) are 13 and 14.
    let mut routers: Vec<u32> = boxed.rows.iter().map(|r| r.router).collect();
    routers.dedup();
    routers.sort_unstable();
    routers.dedup();
    assert_eq!(routers, [13, 14]);
    let inside: Vec<_> = all.rows.iter().filter(|r| r.router == 13 || r.router == 14).cloned().collect();
    assert_eq!(boxed.rows, inside, "the same rows as the whole series, the others left out");
}

#[test]
fn busiest_keeps_the_ports_with_the_most_busy_time_over_the_run() {
    let p = plan(TORUS);
    let every = Time::from_ns(500);
    let (_, all) = p.run_with_series(every, |_| {}).unwrap();
    // Busy picoseconds per port over the run, from the whole series (500 ns intervals).
    let mut total: HashMap<(u32, u32), u64> = HashMap::new();
    for r in &all.rows {
        *total.entry((r.router, r.port)).or_default() += (r.utilization * 500_000.0).round() as u64;
    }
    // The five with the most, ties to the lower port (ports are numbered router by router).
    let mut order: Vec<((u32, u32), u64)> = total.into_iter().collect();
    order.sort_by_key(|&(k, busy)| (std::cmp::Reverse(busy), k));
    let mut want: Vec<(u32, u32)> = order[..5].iter().map(|x| x.0).collect();
    want.sort_unstable();
    assert!(order[0].1 > order[10].1, "some ports are busier than others: {order:?}");
    let (_, top) = p.run_with_series_filtered(every, &filter(&[], Some(5)), |_| {}).unwrap();
    let mut kept: Vec<(u32, u32)> = top.rows.iter().map(|r| (r.router, r.port)).collect();
    kept.dedup();
    kept.sort_unstable();
    kept.dedup();
    assert_eq!(kept, want);
    let intervals = all.rows.iter().map(|r| r.t_ns).fold(0.0, f64::max);
    assert_eq!(top.rows.len(), 5 * (intervals / 500.0 + 1.0) as usize, "every interval of the five");
    // With a region, the busiest of the region.
    let (_, top_in) = p.run_with_series_filtered(every, &filter(&["d1=0"], Some(2)), |_| {}).unwrap();
    assert!(top_in.rows.iter().all(|r| r.router < 4) && !top_in.rows.is_empty());
}

#[test]
fn bad_filters_are_refused_naming_the_flag_and_the_value() {
    let p = plan(TORUS);
    let every = Time::from_ns(500);
    let e = config_error(p.run_with_series_filtered(every, &filter(&["d2=0"], None), |_| {}));
    assert!(e.starts_with("--series-region: 'd2=0'") && e.contains("d0, d1"), "{e}");
    let e = config_error(p.run_with_series_filtered(every, &filter(&["d0=2..4"], None), |_| {}));
    assert!(e.starts_with("--series-region: 'd0=2..4'") && e.contains("0 to 3"), "{e}");
    let e = config_error(p.run_with_series_filtered(every, &filter(&["d0=x"], None), |_| {}));
    assert!(e.contains("'x' is not a coordinate"), "{e}");
    let e = config_error(p.run_with_series_filtered(every, &filter(&[], Some(0)), |_| {}));
    assert!(e.starts_with("--series-busiest: 0"), "{e}");
    let fat = plan("[topology]\ntype = \"fat_tree\"\nradix = 4\nlevels = 2\n");
    let e = config_error(fat.run_with_series_filtered(every, &filter(&["d0=0"], None), |_| {}));
    assert!(e.starts_with("--series-region") && e.contains("not a torus"), "{e}");
}

#[test]
fn a_parquet_series_holds_the_values_of_the_csv_series() {
    let d = temp_dir("parquet");
    let p = plan(TORUS);
    // Short intervals: more rows than one row group holds (64 Ki), so several are written.
    let every = Time::from_ns(20);
    let (_, csv_cut) = p.run_series_files(every, &PortFilter::default(), files(&d.join("s.csv")), |_| {}).unwrap();
    let (_, pq_cut) = p.run_series_files(every, &PortFilter::default(), files(&d.join("s.parquet")), |_| {}).unwrap();
    assert_eq!((csv_cut, pq_cut), (None, None));
    let csv = std::fs::read_to_string(d.join("s.csv")).unwrap();
    let reader = SerializedFileReader::new(std::fs::File::open(d.join("s.parquet")).unwrap()).unwrap();
    assert!(reader.metadata().num_row_groups() > 1, "{} row groups", reader.metadata().num_row_groups());
    // Values are written plain (no dictionary page) in Snappy-compressed pages.
    let group = reader.metadata().row_group(0);
    assert!((0..7).all(|c| group.column(c).dictionary_page_offset().is_none()));
    assert!((0..7).all(|c| group.column(c).compression() == parquet::basic::Compression::SNAPPY));
    let rows: Vec<parquet::record::Row> = reader.get_row_iter(None).unwrap().map(|r| r.unwrap()).collect();
    let lines: Vec<&str> = csv.lines().skip(1).collect();
    assert!(lines.len() > 65536);
    assert_eq!(rows.len(), lines.len());
    use parquet::record::RowAccessor;
    for (row, line) in rows.iter().zip(&lines) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(row.get_double(0).unwrap(), f[0].parse::<f64>().unwrap(), "{line}");
        assert_eq!(row.get_uint(1).unwrap().to_string(), f[1], "{line}");
        assert_eq!(row.get_uint(2).unwrap().to_string(), f[2], "{line}");
        assert_eq!(row.get_string(3).unwrap(), f[3], "{line}");
        assert_eq!(row.get_string(4).unwrap(), f[4], "{line}");
        assert_eq!(format!("{:.6}", row.get_double(5).unwrap()), f[5], "{line}");
        assert_eq!(row.get_uint(6).unwrap().to_string(), f[6], "{line}");
    }
    // The series held in memory writes the same file.
    let (_, held) = p.run_with_series(every, |_| {}).unwrap();
    held.write(&d.join("held.parquet")).unwrap();
    assert_eq!(std::fs::read(d.join("held.parquet")).unwrap(), std::fs::read(d.join("s.parquet")).unwrap());
}
