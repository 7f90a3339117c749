//! The few Redis commands the fleet sends, spoken over our own small RESP2 reader, with two
//! promises the `redis` crate's connections do not keep (issue 24):
//!
//! - **a deadline per operation**: every write and every read of a reply share one deadline, so
//!   a server (or proxy) that sends each byte just inside the socket timeout cannot hold a call
//!   for minutes (redis-rs applies its timeout to each `read`, not to the command);
//! - **bounded replies**: each command says how large a reply it accepts (array length, bulk
//!   size, nesting depth, line length). A header claiming more is refused before anything is
//!   allocated or read for it, and the connection is dropped. (redis-rs 0.27 takes a header at
//!   its word: behind a pooled connection, a `$1073741824` header followed by a fast stream kept
//!   a call reading for 5.7 s; the issue saw 9 GiB of RSS.)
//!
//! The `redis` crate is still used to parse `redis_url` and to hash the scripts.

use std::io::{Read, Write};
use std::time::Instant;

/// The longest status or error line accepted, in bytes.
pub(crate) const MAX_LINE: usize = 4096;

/// What one command accepts as a reply.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The largest bulk string, in bytes.
    pub max_bulk: usize,
    /// The longest array (0: no array).
    pub max_array: usize,
}

impl Limits {
    /// A number, a status or a short value: no array.
    pub(crate) const SCALAR: Limits = Limits {
        max_bulk: 128,
        max_array: 0,
    };
    /// A breaker's JSON state (about 250 bytes): no array.
    pub(crate) const BREAKER: Limits = Limits {
        max_bulk: 4096,
        max_array: 0,
    };
}

/// A reply.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    Nil,
    Int(i64),
    Bulk(Vec<u8>),
    Status(String),
    /// An error reply (`-NOSCRIPT ...`, `-WRONGTYPE ...`).
    Error(String),
    Array(Vec<Reply>),
}

/// Why a command has no reply.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CmdError {
    /// The connection failed, closed or missed the deadline.
    Io(String),
    /// The reply was larger than the command accepts (bad data for the key).
    TooLarge(String),
    /// The bytes were not RESP2.
    Protocol(String),
}

impl std::fmt::Display for CmdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CmdError::Io(m) | CmdError::TooLarge(m) | CmdError::Protocol(m) => f.write_str(m),
        }
    }
}

enum ParseErr {
    More,
    TooLarge(String),
    Protocol(String),
}

/// Parses one reply at the start of `buf`: the reply and the bytes it took, or `Ok(None)` when
/// more bytes are needed. Refuses a header claiming more than `lim` before waiting for its body.
pub(crate) fn parse(buf: &[u8], lim: &Limits) -> Result<Option<(Reply, usize)>, CmdError> {
    match parse_at(buf, 0, lim, 0) {
        Ok((r, n)) => Ok(Some((r, n))),
        Err(ParseErr::More) => Ok(None),
        Err(ParseErr::TooLarge(m)) => Err(CmdError::TooLarge(m)),
        Err(ParseErr::Protocol(m)) => Err(CmdError::Protocol(m)),
    }
}

fn line(buf: &[u8], pos: usize) -> Result<(&[u8], usize), ParseErr> {
    let rest = &buf[pos..];
    let window = &rest[..rest.len().min(MAX_LINE + 2)];
    match window.windows(2).position(|w| w == b"\r\n") {
        Some(i) => Ok((&rest[..i], pos + i + 2)),
        None if rest.len() > MAX_LINE + 1 => Err(ParseErr::TooLarge(format!(
            "a reply line longer than {MAX_LINE} bytes"
        ))),
        None => Err(ParseErr::More),
    }
}

fn int(s: &[u8]) -> Result<i64, ParseErr> {
    std::str::from_utf8(s)
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .ok_or_else(|| ParseErr::Protocol("a reply with a malformed length or integer".into()))
}

fn parse_at(
    buf: &[u8],
    pos: usize,
    lim: &Limits,
    depth: usize,
) -> Result<(Reply, usize), ParseErr> {
    let Some(&kind) = buf.get(pos) else {
        return Err(ParseErr::More);
    };
    let (body, next) = line(buf, pos + 1)?;
    let text = || String::from_utf8_lossy(body).into_owned();
    match kind {
        b'+' => Ok((Reply::Status(text()), next)),
        b'-' => Ok((Reply::Error(text()), next)),
        b':' => Ok((Reply::Int(int(body)?), next)),
        b'$' => {
            let n = int(body)?;
            if n < 0 {
                return Ok((Reply::Nil, next));
            }
            if n as u64 > lim.max_bulk as u64 {
                return Err(ParseErr::TooLarge(format!(
                    "a bulk reply of {n} bytes (at most {} expected)",
                    lim.max_bulk
                )));
            }
            let n = n as usize;
            if buf.len() < next + n + 2 {
                return Err(ParseErr::More);
            }
            if &buf[next + n..next + n + 2] != b"\r\n" {
                return Err(ParseErr::Protocol("a bulk reply without its CRLF".into()));
            }
            Ok((Reply::Bulk(buf[next..next + n].to_vec()), next + n + 2))
        }
        b'*' => {
            let n = int(body)?;
            if n < 0 {
                return Ok((Reply::Nil, next));
            }
            if n as u64 > lim.max_array as u64 || depth >= 1 {
                return Err(ParseErr::TooLarge(format!(
                    "an array reply of {n} elements at depth {depth} (at most {} at depth 0 expected)",
                    lim.max_array
                )));
            }
            let mut items = Vec::with_capacity(n as usize);
            let mut at = next;
            for _ in 0..n {
                let (item, after) = parse_at(buf, at, lim, depth + 1)?;
                items.push(item);
                at = after;
            }
            Ok((Reply::Array(items), at))
        }
        other => Err(ParseErr::Protocol(format!(
            "a reply of unknown type {:?}",
            other as char
        ))),
    }
}

/// A command as RESP2 bytes.
pub(crate) fn encode(args: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + args.iter().map(|a| a.len() + 16).sum::<usize>());
    out.extend_from_slice(format!("*{}\r\n", args.len()).as_bytes());
    for a in args {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// What a server error reply says about the backend: `true` when it is about one key's data (a
/// value of the wrong type, a script refusing it), `false` when the server as a whole refuses
/// (an ACL, out of memory, loading, read-only replica, busy script, ...): then the fleet uses
/// local state for a while, with one event, instead of one per call.
pub(crate) fn is_data_error(message: &str) -> bool {
    const SERVER: [&str; 11] = [
        "NOPERM",
        "NOAUTH",
        "WRONGPASS",
        "OOM",
        "LOADING",
        "READONLY",
        "MASTERDOWN",
        "BUSY",
        "MISCONF",
        "CLUSTERDOWN",
        "NOREPLICAS",
    ];
    let code = message.split_whitespace().next().unwrap_or("");
    // A script's error carries the command's code after "ERR ... script ...": look for the
    // server codes anywhere in the text too.
    !SERVER.iter().any(|c| {
        code == *c || message.contains(&format!("{c} ")) || message.contains(&format!("-{c}"))
    })
}

/// A blocking connection: a TCP (or Unix) stream and the bytes read but not yet parsed.
pub(crate) struct Conn {
    stream: Stream,
    buf: Vec<u8>,
}

enum Stream {
    Tcp(std::net::TcpStream),
    #[cfg(unix)]
    Unix(std::os::unix::net::UnixStream),
}

impl Stream {
    fn set_timeouts(&self, d: std::time::Duration) -> std::io::Result<()> {
        match self {
            Stream::Tcp(s) => {
                s.set_read_timeout(Some(d))?;
                s.set_write_timeout(Some(d))
            }
            #[cfg(unix)]
            Stream::Unix(s) => {
                s.set_read_timeout(Some(d))?;
                s.set_write_timeout(Some(d))
            }
        }
    }
}

impl Read for Stream {
    fn read(&mut self, b: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(b),
            #[cfg(unix)]
            Stream::Unix(s) => s.read(b),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(b),
            #[cfg(unix)]
            Stream::Unix(s) => s.write(b),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn remaining(deadline: Instant) -> Result<std::time::Duration, CmdError> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(CmdError::Io(
            "redis: the command missed its deadline".into(),
        ));
    }
    Ok(left)
}

fn io(e: std::io::Error) -> CmdError {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            CmdError::Io("redis: the command missed its deadline".into())
        }
        _ => CmdError::Io(format!("redis: {e}")),
    }
}

impl Conn {
    /// Connects to `info` and authenticates / selects the database, all before `deadline`.
    pub(crate) fn connect(
        info: &redis::ConnectionInfo,
        deadline: Instant,
    ) -> Result<Conn, CmdError> {
        let stream = match &info.addr {
            redis::ConnectionAddr::Tcp(host, port) => {
                use std::net::ToSocketAddrs;
                let addrs = (host.as_str(), *port).to_socket_addrs().map_err(io)?;
                let mut last = CmdError::Io(format!("redis: {host} has no address"));
                let mut found = None;
                for a in addrs {
                    match std::net::TcpStream::connect_timeout(&a, remaining(deadline)?) {
                        Ok(s) => {
                            found = Some(s);
                            break;
                        }
                        Err(e) => last = io(e),
                    }
                }
                let s = found.ok_or(last)?;
                let _ = s.set_nodelay(true);
                Stream::Tcp(s)
            }
            #[cfg(unix)]
            redis::ConnectionAddr::Unix(path) => {
                Stream::Unix(std::os::unix::net::UnixStream::connect(path).map_err(io)?)
            }
            _ => {
                return Err(CmdError::Io(
                    "redis: TLS connections are not supported by the fleet backend".into(),
                ))
            }
        };
        let mut conn = Conn {
            stream,
            buf: Vec::new(),
        };
        for cmd in handshake(&info.redis) {
            let args: Vec<&[u8]> = cmd.iter().map(|a| a.as_bytes()).collect();
            match conn.command(&args, &Limits::SCALAR, deadline)? {
                Reply::Error(e) => return Err(CmdError::Io(format!("redis: {e}"))),
                _ => continue,
            }
        }
        Ok(conn)
    }

    /// Sends one command and reads its reply, both before `deadline`.
    pub(crate) fn command(
        &mut self,
        args: &[&[u8]],
        lim: &Limits,
        deadline: Instant,
    ) -> Result<Reply, CmdError> {
        self.stream.set_timeouts(remaining(deadline)?).map_err(io)?;
        self.stream.write_all(&encode(args)).map_err(io)?;
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if let Some((reply, used)) = parse(&self.buf, lim)? {
                self.buf.drain(..used);
                if !self.buf.is_empty() {
                    return Err(CmdError::Protocol(
                        "redis: bytes after the reply (the connection is out of step)".into(),
                    ));
                }
                return Ok(reply);
            }
            self.stream.set_timeouts(remaining(deadline)?).map_err(io)?;
            let n = self.stream.read(&mut chunk).map_err(io)?;
            if n == 0 {
                return Err(CmdError::Io(
                    "redis: the server closed the connection".into(),
                ));
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

/// AUTH and SELECT as the URL asks.
pub(crate) fn handshake(info: &redis::RedisConnectionInfo) -> Vec<Vec<String>> {
    let mut cmds = Vec::new();
    if let Some(pass) = &info.password {
        match &info.username {
            Some(user) => cmds.push(vec!["AUTH".into(), user.clone(), pass.clone()]),
            None => cmds.push(vec!["AUTH".into(), pass.clone()]),
        }
    }
    if info.db != 0 {
        cmds.push(vec!["SELECT".into(), info.db.to_string()]);
    }
    cmds
}

/// A Lua script sent by its hash, by its text when the server does not know it yet.
pub(crate) struct Script {
    pub(crate) src: &'static str,
    pub(crate) sha: String,
}

impl Script {
    pub(crate) fn new(src: &'static str) -> Script {
        Script {
            src,
            sha: redis::Script::new(src).get_hash().to_owned(),
        }
    }

    /// `EVALSHA sha n keys.. args..` (and `EVAL` on `NOSCRIPT`) as argument lists.
    fn args<'a>(
        &'a self,
        by_hash: bool,
        n: &'a str,
        keys: &'a [String],
        argv: &'a [String],
    ) -> Vec<&'a [u8]> {
        let mut a: Vec<&[u8]> = Vec::with_capacity(3 + keys.len() + argv.len());
        if by_hash {
            a.push(b"EVALSHA");
            a.push(self.sha.as_bytes());
        } else {
            a.push(b"EVAL");
            a.push(self.src.as_bytes());
        }
        a.push(n.as_bytes());
        a.extend(keys.iter().map(|k| k.as_bytes()));
        a.extend(argv.iter().map(|k| k.as_bytes()));
        a
    }
}

impl Conn {
    /// Runs `script` before `deadline`.
    pub(crate) fn eval(
        &mut self,
        script: &Script,
        keys: &[String],
        argv: &[String],
        lim: &Limits,
        deadline: Instant,
    ) -> Result<Reply, CmdError> {
        let n = keys.len().to_string();
        let reply = self.command(&script.args(true, &n, keys, argv), lim, deadline)?;
        match reply {
            Reply::Error(e) if e.starts_with("NOSCRIPT") => {
                self.command(&script.args(false, &n, keys, argv), lim, deadline)
            }
            r => Ok(r),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_bounds() {
        let l = Limits {
            max_bulk: 8,
            max_array: 2,
        };
        assert_eq!(
            parse(b"$3\r\nabc\r\n", &l).unwrap(),
            Some((Reply::Bulk(b"abc".to_vec()), 9))
        );
        assert_eq!(parse(b"$3\r\nab", &l).unwrap(), None);
        assert_eq!(parse(b"$-1\r\n", &l).unwrap(), Some((Reply::Nil, 5)));
        assert_eq!(parse(b":12\r\n", &l).unwrap(), Some((Reply::Int(12), 5)));
        assert_eq!(
            parse(b"*2\r\n$1\r\na\r\n$-1\r\n", &l).unwrap(),
            Some((
                Reply::Array(vec![Reply::Bulk(b"a".to_vec()), Reply::Nil]),
                16
            ))
        );
        assert!(matches!(
            parse(b"$1073741824\r\n", &l),
            Err(CmdError::TooLarge(_))
        ));
        assert!(matches!(
            parse(b"*2147483647\r\n", &l),
            Err(CmdError::TooLarge(_))
        ));
        assert!(matches!(
            parse(b"*1\r\n*1\r\n:1\r\n", &l),
            Err(CmdError::TooLarge(_))
        ));
        assert!(matches!(
            parse(&[b'+'; 5000], &l),
            Err(CmdError::TooLarge(_))
        ));
        assert!(matches!(parse(b"%1\r\n", &l), Err(CmdError::Protocol(_))));
    }

    #[test]
    fn server_errors_are_sorted() {
        assert!(is_data_error("WRONGTYPE Operation against a key"));
        assert!(is_data_error("ERR user_script:1: bad"));
        assert!(!is_data_error("NOPERM User x has no permissions"));
        assert!(!is_data_error(
            "OOM command not allowed when used memory > 'maxmemory'."
        ));
        assert!(!is_data_error(
            "ERR Error running script (call to f_x): @user_script:3: -OOM command not allowed"
        ));
    }
}

/// The async twin of [`Conn`] for the tokio backend's task. It has no deadline of its own: the
/// task bounds each operation with `tokio::time::timeout` (every read included) and drops the
/// connection when one misses it.
#[cfg(feature = "redis-tokio")]
pub(crate) mod aio {
    use super::{encode, handshake, io, parse, CmdError, Limits, Reply, Script};
    use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

    trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
    impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

    /// A connection: a TCP (or Unix) stream and the bytes read but not yet parsed.
    pub(crate) struct AsyncConn {
        stream: Box<dyn Io>,
        buf: Vec<u8>,
        chunk: Vec<u8>,
    }

    impl AsyncConn {
        /// Connects to `info` and authenticates / selects the database.
        pub(crate) async fn connect(info: &redis::ConnectionInfo) -> Result<AsyncConn, CmdError> {
            let stream: Box<dyn Io> = match &info.addr {
                redis::ConnectionAddr::Tcp(host, port) => {
                    let s = tokio::net::TcpStream::connect((host.as_str(), *port))
                        .await
                        .map_err(io)?;
                    let _ = s.set_nodelay(true);
                    Box::new(s)
                }
                #[cfg(unix)]
                redis::ConnectionAddr::Unix(path) => {
                    Box::new(tokio::net::UnixStream::connect(path).await.map_err(io)?)
                }
                _ => {
                    return Err(CmdError::Io(
                        "redis: TLS connections are not supported by the fleet backend".into(),
                    ))
                }
            };
            let mut conn = AsyncConn {
                stream,
                buf: Vec::new(),
                chunk: vec![0; 16 * 1024],
            };
            for cmd in handshake(&info.redis) {
                let args: Vec<&[u8]> = cmd.iter().map(|a| a.as_bytes()).collect();
                if let Reply::Error(e) = conn.command(&args, &Limits::SCALAR).await? {
                    return Err(CmdError::Io(format!("redis: {e}")));
                }
            }
            Ok(conn)
        }

        /// Sends one command and reads its reply (at most what `lim` allows).
        pub(crate) async fn command(
            &mut self,
            args: &[&[u8]],
            lim: &Limits,
        ) -> Result<Reply, CmdError> {
            self.stream.write_all(&encode(args)).await.map_err(io)?;
            loop {
                if let Some((reply, used)) = parse(&self.buf, lim)? {
                    self.buf.drain(..used);
                    if !self.buf.is_empty() {
                        return Err(CmdError::Protocol(
                            "redis: bytes after the reply (the connection is out of step)".into(),
                        ));
                    }
                    return Ok(reply);
                }
                let n = self.stream.read(&mut self.chunk).await.map_err(io)?;
                if n == 0 {
                    return Err(CmdError::Io(
                        "redis: the server closed the connection".into(),
                    ));
                }
                self.buf.extend_from_slice(&self.chunk[..n]);
            }
        }

        /// Runs `script` (by its hash, by its text when the server does not know it yet).
        pub(crate) async fn eval(
            &mut self,
            script: &Script,
            keys: &[String],
            argv: &[String],
            lim: &Limits,
        ) -> Result<Reply, CmdError> {
            let n = keys.len().to_string();
            let reply = self
                .command(&script.args(true, &n, keys, argv), lim)
                .await?;
            match reply {
                Reply::Error(e) if e.starts_with("NOSCRIPT") => {
                    self.command(&script.args(false, &n, keys, argv), lim).await
                }
                r => Ok(r),
            }
        }
    }
}
