//! The connection pool: pooled connections with their prepared statements, how they are
//! opened (inside the store's schema), and a call run on one.

use super::{redact, PostgresStore};
use crate::error::{with_causes, StoreError};
use postgres::{Client, Config, NoTls, Statement};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// The most connections a store's pool opens (waits hold none).
pub const POOL_MAX: u32 = 16;

/// How long a call waits for a pooled connection before it is refused with the cause.
pub(super) const POOL_WAIT: Duration = Duration::from_secs(10);

/// A pooled connection and its prepared statements (one round trip per statement after the
/// first use, instead of a parse on every call).
pub(super) struct Conn {
    pub(super) client: Client,
    pub(super) statements: HashMap<&'static str, Statement>,
}

impl Conn {
    pub(super) fn prepare(&mut self, sql: &'static str) -> Result<Statement, StoreError> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql)?;
        self.statements.insert(sql, s.clone());
        Ok(s)
    }
}

/// A failure to connect, with every cause in its message (the pool keeps only the text).
#[derive(Debug)]
pub(super) struct ConnectError(String);

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConnectError {}

/// Opens connections for the pool: the one that checked the schema first, then new ones.
pub(super) struct Manager {
    pub(super) config: Config,
    pub(super) schema: Option<String>,
    pub(super) first: Mutex<Option<Client>>,
}

impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = ConnectError;

    fn connect(&self) -> Result<Conn, ConnectError> {
        let first = self
            .first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let client = match first {
            Some(c) => c,
            None => open_client(&self.config, self.schema.as_deref())
                .map_err(|e| ConnectError(with_causes(&e)))?,
        };
        Ok(Conn {
            client,
            statements: HashMap::new(),
        })
    }

    fn is_valid(&self, conn: &mut Conn) -> Result<(), ConnectError> {
        conn.client
            .simple_query("")
            .map(|_| ())
            .map_err(|e| ConnectError(with_causes(&e)))
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        conn.client.is_closed()
    }
}

/// A new connection, inside `schema` (created if missing) when one is given.
pub(super) fn open_client(
    config: &Config,
    schema: Option<&str>,
) -> Result<Client, postgres::Error> {
    let mut client = config.connect(NoTls)?;
    if let Some(schema) = schema {
        let q = quote_ident(schema);
        client.batch_execute(&format!(
            "CREATE SCHEMA IF NOT EXISTS {q}; SET search_path TO {q}"
        ))?;
    }
    Ok(client)
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

impl PostgresStore {
    /// Runs `f` on a pooled connection. A connection that cannot be had within
    /// [`POOL_WAIT`] is refused with the cause the server gave (`too many clients`, a
    /// refused connection, a failed authentication).
    pub(super) fn with<T>(
        &self,
        f: impl FnOnce(&mut Conn) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let pool = self.pool.as_ref().ok_or_else(|| StoreError::Unusable {
            location: redact(&self.url),
            problem: "is closed".into(),
        })?;
        let mut conn = pool.get().map_err(|e| StoreError::Unusable {
            location: redact(&self.url),
            problem: format!("cannot be reached: {e}"),
        })?;
        f(&mut conn)
    }
}
