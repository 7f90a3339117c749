//! The `retry-lab` binary: the LISTENING line, `--script`, and clean exits on stdin close and
//! SIGTERM, as Python and Ruby harnesses use it.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

const BIN: &str = env!("CARGO_BIN_EXE_retry-lab");

async fn start(args: &[&str]) -> (Child, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut line = String::new();
    let stdout = child.stdout.as_mut().unwrap();
    let mut reader = BufReader::new(stdout);
    tokio::time::timeout(Duration::from_secs(5), reader.read_line(&mut line))
        .await
        .expect("LISTENING within 5 s")
        .unwrap();
    let addr = line
        .strip_suffix('\n')
        .and_then(|l| l.strip_prefix("LISTENING "))
        .unwrap_or_else(|| panic!("bad first line {line:?}"))
        .to_string();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    (child, addr)
}

fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

async fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    tokio::time::timeout(Duration::from_secs(5), child.wait())
        .await
        .expect("exits within 5 s")
        .unwrap()
}

#[tokio::test]
async fn exits_when_stdin_closes_and_loads_the_script_file() {
    let dir = std::env::temp_dir().join(format!("retry-lab-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    std::fs::write(&script, r#"{"steps": [{"fault": "overloaded"}]}"#).unwrap();

    let (mut child, addr) = start(&[
        "--port",
        "0",
        "--script",
        script.to_str().unwrap(),
        "--exit-on-stdin-close",
    ])
    .await;
    let c = client();
    let health = c
        .get(format!("http://{addr}/_lab/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let r = c
        .post(format!("http://{addr}/v1/messages"))
        .header("x-api-key", "sk-ant-binary-test-wxyz")
        .body(r#"{"model":"m","max_tokens":1,"messages":[]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 529);

    drop(child.stdin.take());
    assert!(wait_exit(&mut child).await.success());
    let mut rest = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut rest)
        .await
        .unwrap();
    assert_eq!(rest, "", "stdout holds only the LISTENING line");
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .await
        .unwrap();
    assert!(
        err.contains("POST /v1/messages") && err.contains("overloaded 529"),
        "{err}"
    );
    assert!(
        err.contains("...wxyz") && !err.contains("binary-test"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[cfg(unix)]
#[tokio::test]
async fn exits_cleanly_on_sigterm() {
    let (mut child, addr) = start(&["--quiet"]).await;
    let health = client()
        .get(format!("http://{addr}/_lab/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let pid = child.id().unwrap().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    assert!(wait_exit(&mut child).await.success());
}

#[tokio::test]
async fn a_bad_script_file_is_a_usage_error() {
    let path = std::env::temp_dir().join(format!("retry-lab-bad-{}.json", std::process::id()));
    std::fs::write(&path, r#"{"steps": [{"fault": "bogus"}]}"#).unwrap();
    let out = Command::new(BIN)
        .args(["--script", path.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bogus"));
    let _ = std::fs::remove_file(path);
}

#[tokio::test]
async fn quota_flags_set_the_rate_limits() {
    let (mut child, addr) = start(&[
        "--quiet",
        "--rpm",
        "1",
        "--limit-shape",
        "gemini",
        "--reply-tokens",
        "3",
        "--exit-on-stdin-close",
    ])
    .await;
    let url = format!("http://{addr}/v1/chat/completions");
    let post = || {
        client()
            .post(&url)
            .bearer_auth("sk-flags-key-1")
            .json(&serde_json::json!({"messages": []}))
            .send()
    };
    let r = post().await.unwrap();
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["usage"]["completion_tokens"], 3);
    let r = post().await.unwrap();
    assert_eq!(r.status(), 429);
    assert!(r.text().await.unwrap().contains("RESOURCE_EXHAUSTED"));
    drop(child.stdin.take());
    assert!(wait_exit(&mut child).await.success());

    let out = Command::new(BIN)
        .args(["--rpm", "0"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
