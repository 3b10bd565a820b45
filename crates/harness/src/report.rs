//! Machine-readable reports of a run: JSON and JUnit XML.

use crate::run::TestResult;

/// `{"passed": N, "failed": M, "results": [...]}`.
pub fn to_json(results: &[TestResult]) -> String {
    let passed = results.iter().filter(|r| r.passed).count();
    let report = serde_json::json!({
        "passed": passed,
        "failed": results.len() - passed,
        "results": results,
    });
    serde_json::to_string_pretty(&report).expect("results serialize to JSON")
}

/// One `<testsuite>` per suite, one `<testcase>` per row; failures carry the reason, and the
/// serial text goes to `<system-out>`.
pub fn to_junit_xml(results: &[TestResult]) -> String {
    let mut suites: Vec<&str> = results.iter().map(|r| r.suite.as_str()).collect();
    suites.dedup();
    let mut seen = std::collections::HashSet::new();
    suites.retain(|suite| seen.insert(*suite));

    let total_failed = results.iter().filter(|r| !r.passed).count();
    let total_time: f64 = results.iter().map(|r| r.wall_seconds).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml += &format!(
        "<testsuites name=\"backspin test ROMs\" tests=\"{}\" failures=\"{total_failed}\" time=\"{total_time:.3}\">\n",
        results.len()
    );
    for suite in suites {
        let members: Vec<&TestResult> = results.iter().filter(|r| r.suite == suite).collect();
        let failed = members.iter().filter(|r| !r.passed).count();
        let time: f64 = members.iter().map(|r| r.wall_seconds).sum();
        xml += &format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" time=\"{time:.3}\">\n",
            escape(suite),
            members.len()
        );
        for result in members {
            xml += &format!(
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\">\n",
                escape(suite),
                escape(&result.test),
                result.wall_seconds
            );
            if !result.passed {
                xml += &format!("      <failure message=\"{}\"/>\n", escape(&result.reason));
            }
            if !result.serial.is_empty() {
                xml += &format!(
                    "      <system-out>{}</system-out>\n",
                    escape(&result.serial)
                );
            }
            xml += "    </testcase>\n";
        }
        xml += "  </testsuite>\n";
    }
    xml += "</testsuites>\n";
    xml
}

/// XML text/attribute escaping; control characters XML 1.0 forbids become U+FFFD.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results() -> Vec<TestResult> {
        let make = |suite: &str, test: &str, passed: bool| TestResult {
            suite: suite.into(),
            test: test.into(),
            passed,
            reason: "screenshot <differs> & \"so\"".into(),
            frames: 3,
            m_cycles: 100,
            wall_seconds: 0.5,
            serial: "Failed\u{1}".into(),
            artifacts: Vec::new(),
        };
        vec![
            make("blargg", "b/1", true),
            make("acid", "a/1", false),
            make("blargg", "b/2", false),
        ]
    }

    #[test]
    fn json_counts_and_lists() {
        let json: serde_json::Value = serde_json::from_str(&to_json(&results())).unwrap();
        assert_eq!(json["passed"], 1);
        assert_eq!(json["failed"], 2);
        assert_eq!(json["results"][1]["test"], "a/1");
        assert_eq!(json["results"][1]["passed"], false);
    }

    #[test]
    fn junit_groups_by_suite_and_escapes() {
        let xml = to_junit_xml(&results());
        assert!(xml.contains("<testsuites name=\"backspin test ROMs\" tests=\"3\" failures=\"2\""));
        assert!(xml.contains("<testsuite name=\"blargg\" tests=\"2\" failures=\"1\""));
        assert!(xml.contains("<testsuite name=\"acid\" tests=\"1\" failures=\"1\""));
        assert!(xml.contains("message=\"screenshot &lt;differs&gt; &amp; &quot;so&quot;\""));
        assert!(xml.contains("<system-out>Failed\u{FFFD}</system-out>"));
        assert_eq!(xml.matches("<testcase ").count(), 3);
        assert_eq!(xml.matches("<failure ").count(), 2);
    }
}
