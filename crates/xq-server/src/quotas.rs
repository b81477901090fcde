//! The caps on the rooms that clients make open: per connection, per address and in total.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::net::IpAddr;

use xq_protocol::ErrorCode;

use crate::tally::Tally;
use crate::{Config, ConnId};

/// How many open rooms each connection, and each address, has made open. A room counts from
/// its opening to its closing, against the connections that made it open (its creator, or
/// both quick-match players) and their addresses; a connection that goes while its rooms are
/// held for the grace period leaves them counting against its address, so that reconnecting
/// does not escape the cap.
#[derive(Debug, Default)]
pub(crate) struct Quotas {
    /// Every connection, and every one gone whose rooms still count against its address.
    holders: HashMap<ConnId, Holder>,
    /// How many open rooms connections from each address have made open.
    by_origin: Tally<IpAddr>,
}

/// One connection's account.
#[derive(Debug)]
struct Holder {
    /// The address it came from; `None` for an in-process connection, which is not counted by
    /// address.
    origin: Option<IpAddr>,
    /// The open rooms it made open.
    rooms: u32,
    /// Whether it is still connected.
    connected: bool,
}

impl Quotas {
    /// Opens an account for `conn`, from `origin`.
    pub(crate) fn connect(&mut self, conn: ConnId, origin: Option<IpAddr>) {
        let holder = Holder {
            origin,
            rooms: 0,
            connected: true,
        };
        self.holders.insert(conn, holder);
    }

    /// `conn` is gone: its account is kept while rooms it made open still count against its
    /// address, and dropped otherwise.
    pub(crate) fn disconnect(&mut self, conn: ConnId) {
        if let Entry::Occupied(mut holder) = self.holders.entry(conn) {
            if holder.get().origin.is_some() && holder.get().rooms > 0 {
                holder.get_mut().connected = false;
            } else {
                holder.remove();
            }
        }
    }

    /// Whether `conn` may make another room open, with `open` rooms open in all, under
    /// [`Config::max_rooms_per_connection`], [`Config::max_rooms_per_address`] and
    /// [`Config::max_rooms`].
    ///
    /// # Errors
    ///
    /// [`ErrorCode::TooManyRooms`] if a cap is reached, [`ErrorCode::NotInRoom`] if `conn` is
    /// not connected.
    pub(crate) fn check(
        &self,
        conn: ConnId,
        open: usize,
        config: &Config,
    ) -> Result<(), ErrorCode> {
        let holder = self
            .holders
            .get(&conn)
            .filter(|holder| holder.connected)
            .ok_or(ErrorCode::NotInRoom)?;
        let from_origin = holder
            .origin
            .map_or(0, |origin| self.by_origin.get(&origin));
        if holder.rooms >= config.max_rooms_per_connection
            || from_origin >= config.max_rooms_per_address
            || open >= config.max_rooms
        {
            return Err(ErrorCode::TooManyRooms);
        }
        Ok(())
    }

    /// Counts a room that `conn` made open against it and its address; whether `conn` is
    /// connected, and so counted.
    pub(crate) fn count(&mut self, conn: ConnId) -> bool {
        let Some(holder) = self
            .holders
            .get_mut(&conn)
            .filter(|holder| holder.connected)
        else {
            return false;
        };
        holder.rooms += 1;
        if let Some(origin) = holder.origin {
            self.by_origin.add(origin);
        }
        true
    }

    /// A room counted against `conn` closed: `conn` (if still connected) and its address may
    /// make another open.
    pub(crate) fn uncount(&mut self, conn: ConnId) {
        let Entry::Occupied(mut holder) = self.holders.entry(conn) else {
            return;
        };
        let account = holder.get_mut();
        account.rooms = account.rooms.saturating_sub(1);
        let origin = account.origin;
        if !account.connected && account.rooms == 0 {
            holder.remove();
        }
        if let Some(origin) = origin {
            self.by_origin.remove(origin);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection's rooms count against its address after it has gone, until they close.
    #[test]
    fn rooms_of_a_departed_connection_count_until_they_close() {
        let config = Config {
            max_rooms_per_address: 1,
            ..Config::default()
        };
        let origin = Some(IpAddr::from([10, 0, 0, 1]));
        let mut quotas = Quotas::default();
        quotas.connect(ConnId(1), origin);
        assert_eq!(quotas.check(ConnId(1), 0, &config), Ok(()));
        assert!(quotas.count(ConnId(1)));
        quotas.disconnect(ConnId(1));
        assert_eq!(
            quotas.check(ConnId(1), 1, &config),
            Err(ErrorCode::NotInRoom)
        );
        quotas.connect(ConnId(2), origin);
        assert_eq!(
            quotas.check(ConnId(2), 1, &config),
            Err(ErrorCode::TooManyRooms)
        );
        quotas.uncount(ConnId(1));
        assert_eq!(quotas.check(ConnId(2), 0, &config), Ok(()));
        assert!(!quotas.holders.contains_key(&ConnId(1)));
    }
}
