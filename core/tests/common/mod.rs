//! What several test files share: a virtual clock for the drivers, and a throwaway
//! `redis-server` on loopback. Each test binary uses a part of it.
#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
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
