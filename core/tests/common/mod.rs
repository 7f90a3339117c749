//! What several test files share: a virtual clock for the drivers, and a throwaway
//! `redis-server` on loopback. Each test binary uses a part of it.
#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use retry_core::driver::blocking::Sleeper;
use retry_core::driver::Clock;

/// A fake clock advanced by the fake sleeper: nothing sleeps for real.
#[derive(Default)]
pub struct VirtualTime {
    pub now: Mutex<f64>,
    pub slept: Mutex<Vec<f64>>,
}

impl Sleeper for VirtualTime {
    fn sleep(&self, d: Duration) {
        *self.now.lock().unwrap() += d.as_secs_f64();
        self.slept.lock().unwrap().push(d.as_secs_f64());
    }
}

impl Clock for VirtualTime {
    fn now(&self) -> f64 {
        *self.now.lock().unwrap()
    }
}

/// One server at a time per test binary: a port picked free can be taken by another test's
/// server before ours binds it, and then two tests share (and kill) one server.
static SERIAL: Mutex<()> = Mutex::new(());

/// A `redis-server` on a free loopback port, killed when dropped. Needs the Debian package
/// (scripts/setup.sh installs it).
pub struct Redis {
    pub child: Child,
    pub port: u16,
    _serial: MutexGuard<'static, ()>,
}

impl Redis {
    pub fn start() -> Redis {
        let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server is needed for this test: run scripts/setup.sh (apt-get install -y redis-server)");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        Redis {
            child,
            port,
            _serial: serial,
        }
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Sends a signal (`-STOP`, `-CONT`) to the server.
    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig}");
    }

    pub fn kill(&mut self) {
        self.signal_quietly("-CONT");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn signal_quietly(&self, sig: &str) {
        let _ = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .stderr(Stdio::null())
            .status();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What the proxy does to the replies.
#[derive(Clone, Copy)]
pub enum Mode {
    /// Forwards both ways.
    Pass,
    /// Sends each reply byte 0.2 s apart: a link that never trips a per-read timeout.
    Drip,
    /// Answers every command with this header, then up to this many filler bytes, as fast as
    /// the client reads them.
    Garbage(&'static [u8], usize),
}

/// A loopback proxy in front of `upstream` whose mode can change while connections are open
/// (a fleet is healthy and connected first, then the link turns bad). Returns its port.
pub fn proxy(upstream: u16, mode: Arc<Mutex<Mode>>) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { return };
            let Ok(mut server) = std::net::TcpStream::connect(("127.0.0.1", upstream)) else {
                return;
            };
            let (mut c2, mut s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            let m2 = Arc::clone(&mode);
            std::thread::spawn(move || {
                let mut b = [0u8; 4096];
                while let Ok(n @ 1..) = c2.read(&mut b) {
                    let now = *m2.lock().unwrap();
                    if let Mode::Garbage(header, stream) = now {
                        if c2.write_all(header).is_err() {
                            return;
                        }
                        let filler = vec![b'a'; 1 << 16];
                        let mut sent = 0;
                        while sent < stream && c2.write_all(&filler).is_ok() {
                            sent += filler.len();
                        }
                        continue;
                    }
                    if s2.write_all(&b[..n]).is_err() {
                        return;
                    }
                }
            });
            let mode = Arc::clone(&mode);
            std::thread::spawn(move || {
                let mut b = [0u8; 1];
                while let Ok(1) = server.read(&mut b) {
                    if matches!(*mode.lock().unwrap(), Mode::Drip) {
                        std::thread::sleep(Duration::from_millis(200));
                    }
                    if client.write_all(&b).is_err() {
                        return;
                    }
                }
                let _ = client.shutdown(std::net::Shutdown::Both);
            });
        }
    });
    port
}

/// The resident set size of this process.
pub fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<u64>().ok())
        .unwrap_or(0)
        * 1024
}
