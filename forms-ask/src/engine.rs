//! The engine's facade: [`Asks`] over one [`Store`] and [`AsPrincipal`], the engine acting as
//! one principal. Every rule of a request's life is decided in a module here and applied
//! through the store.

mod action;
mod authorize;
mod change;
mod expiry;
mod form_bridge;
mod id;
mod members;
mod message;
mod open;
mod pipeline;
mod reads;
mod requester;
mod respond;

use crate::error::AskError;
use crate::limits::Quotas;
use crate::model::Principal;
use crate::store::Store;
use crate::time::{Clock, SystemClock, Timestamp};
use crate::wait::{Hub, WAITS_PER_PRINCIPAL};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

pub use expiry::{BOUND_APPROVAL_EXPIRY, EXPIRY_MAX};
pub(crate) use form_bridge::stored_form;

/// The engine over one store. Share it (it is `Send + Sync`); act through
/// [`Asks::as_principal`].
///
/// ```
/// use forms_ask::{Asks, ConversationId, NewRequest, Outcome, Principal, SqliteStore};
///
/// let dir = std::env::temp_dir().join(format!("forms-ask-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let asks = Asks::new(SqliteStore::open(dir.join("asks.db"))?);
/// let (chat, agent, ana) = (
///     ConversationId::new("release-42")?,
///     Principal::new("agent")?,
///     Principal::new("ana")?,
/// );
/// asks.join(&chat, &agent)?;
/// asks.join(&chat, &ana)?;
///
/// let request = asks
///     .as_principal(&agent)
///     .open(&chat, NewRequest::approval("Deploy 1.4 to staging?"), "open-1")?;
/// let done = asks
///     .as_principal(&ana)
///     .respond(&request.id, request.version, Outcome::Approved, None, "answer-1")?;
/// assert_eq!(done.outcome, Some(Outcome::Approved));
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), forms_ask::AskError>(())
/// ```
pub struct Asks {
    inner: Arc<Inner>,
}

/// What an engine is made of; its wait hub follows it by a weak reference.
pub(crate) struct Inner {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    high_water: AtomicI64,
    waits: Arc<Hub>,
    quotas: Quotas,
}

impl std::fmt::Debug for Asks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asks")
            .field("store", &self.inner.store.location())
            .finish()
    }
}

impl Asks {
    /// The engine over `store`, with the system clock.
    pub fn new(store: impl Store + 'static) -> Asks {
        Asks::with_clock(Arc::new(store), Arc::new(SystemClock))
    }

    /// The engine over `store`, reading the time from `clock`.
    pub fn with_clock(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Asks {
        Asks {
            inner: Arc::new(Inner {
                store,
                clock,
                high_water: AtomicI64::new(i64::MIN),
                waits: Arc::new(Hub::new(WAITS_PER_PRINCIPAL)),
                quotas: Quotas::default(),
            }),
        }
    }

    /// The same engine, allowing each principal at most `limit` concurrent waits (default
    /// [`WAITS_PER_PRINCIPAL`]); a wait beyond it is refused with
    /// [`AskError::TooManyWaits`]. Set it before the first wait.
    pub fn with_wait_limit(self, limit: usize) -> Asks {
        let inner = match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => {
                inner.waits = Arc::new(Hub::new(limit));
                inner
            }
            Err(inner) => return Asks { inner },
        };
        Asks {
            inner: Arc::new(inner),
        }
    }

    /// The same engine with these per-principal quotas (default [`Quotas::default`]): how
    /// many requests one principal may have open, how many messages it may post on one
    /// request. Set them before the engine is shared.
    ///
    /// ```
    /// # use forms_ask::{Asks, ConversationId, NewRequest, Principal, Quotas, SqliteStore};
    /// # let dir = std::env::temp_dir().join(format!("forms-ask-quota-doc-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let quotas = Quotas { open_requests: 1, ..Quotas::default() };
    /// let asks = Asks::new(SqliteStore::open(dir.join("asks.db"))?).with_quotas(quotas);
    /// # let (chat, agent) = (ConversationId::new("c")?, Principal::new("agent")?);
    /// # asks.join(&chat, &agent)?;
    /// # asks.join(&chat, &Principal::new("ana")?)?;
    /// let me = asks.as_principal(&agent);
    /// me.open(&chat, NewRequest::question("Which day?"), "open-1")?;
    /// let refused = me.open(&chat, NewRequest::question("Which time?"), "open-2");
    /// assert_eq!(refused.unwrap_err().code(), "quota_exceeded");
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), forms_ask::AskError>(())
    /// ```
    pub fn with_quotas(self, quotas: Quotas) -> Asks {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => {
                inner.quotas = quotas;
                Asks {
                    inner: Arc::new(inner),
                }
            }
            Err(inner) => Asks { inner },
        }
    }

    /// The per-principal quotas in force.
    pub fn quotas(&self) -> Quotas {
        self.inner.quotas
    }

    /// The number of waits in progress (every principal's): a released or finished wait no
    /// longer counts.
    pub fn waits_in_progress(&self) -> usize {
        self.inner.waits.waiting()
    }

    /// The engine behind a hub's weak reference.
    pub(crate) fn from_inner(inner: Arc<Inner>) -> Asks {
        Asks { inner }
    }

    /// The wait hub and a weak reference to this engine, for a waiter.
    pub(crate) fn waits(&self) -> (&Arc<Hub>, std::sync::Weak<Inner>) {
        (&self.inner.waits, Arc::downgrade(&self.inner))
    }

    /// Opens the store a location names: a `postgres://` or `postgresql://` URL is a
    /// PostgreSQL database, anything else the path of a SQLite file.
    /// A store whose feature (`sqlite`, `postgres`) is off is refused.
    pub fn open_location(location: &str) -> Result<Asks, AskError> {
        let store = crate::store::open_location(location)?;
        Ok(Asks::with_clock(store, Arc::new(SystemClock)))
    }

    /// The store.
    pub fn store(&self) -> &dyn Store {
        &*self.inner.store
    }

    /// The time: the clock's, but never earlier than a time this engine already used or saw
    /// recorded in its store, so a clock that jumps back cannot reopen what has expired.
    pub fn now(&self) -> Timestamp {
        let now = self.inner.clock.now().millis();
        let before = self.inner.high_water.fetch_max(now, Ordering::SeqCst);
        Timestamp::from_millis(now.max(before))
    }

    /// Raises this engine's time to the store's high-water mark.
    fn observe(&self, store_high_water: Option<Timestamp>) {
        if let Some(t) = store_high_water {
            self.inner
                .high_water
                .fetch_max(t.millis(), Ordering::SeqCst);
        }
    }

    /// A handle that acts as `principal`.
    pub fn as_principal<'a>(&'a self, principal: &Principal) -> AsPrincipal<'a> {
        AsPrincipal {
            asks: self,
            me: principal.clone(),
        }
    }
}

/// The engine acting as one principal. Every write takes a retry key: the same key with
/// the same input returns the first result; with a different input it is refused.
#[derive(Debug)]
pub struct AsPrincipal<'a> {
    asks: &'a Asks,
    me: Principal,
}

impl AsPrincipal<'_> {
    /// Who this handle acts as.
    pub fn principal(&self) -> &Principal {
        &self.me
    }

    fn store(&self) -> &dyn Store {
        &*self.asks.inner.store
    }

    /// The store, shared (a form request's handle reads its uploads with it).
    pub(crate) fn shared_store(&self) -> Arc<dyn Store> {
        Arc::clone(&self.asks.inner.store)
    }
}
