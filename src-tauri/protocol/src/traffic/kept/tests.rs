use super::*;
use crate::traffic::tests::{record_secrets, request, response};
use crate::traffic::{Direction, TrafficLimits};

fn kept(bounds: Bounds) -> (Arc<Store>, Traffic, Kept) {
    let store = Arc::new(Store::in_memory().unwrap());
    let traffic = Traffic::new(TrafficLimits::default());
    let kept = Kept::start(store.clone(), &traffic, bounds).unwrap();
    (store, traffic, kept)
}

fn all(session: i64) -> TrafficQuery {
    TrafficQuery {
        limit: 100,
        session: Some(session),
        ..TrafficQuery::default()
    }
}

#[test]
fn a_kept_session_holds_what_crossed_while_it_was_kept_and_nothing_else() {
    let (_, traffic, kept) = kept(Bounds::default());
    let (a, b) = (traffic.ring("alpha"), traffic.ring("beta"));
    a.record(Direction::Out, &request(9, "before/keeping"));
    let session = kept.keep().unwrap();
    assert_eq!(kept.keeping(), Some(session.id));
    // Both servers use the same ids; each response pairs with its own server's request.
    a.record(Direction::Out, &request(1, "tools/call"));
    b.record(Direction::Out, &request(1, "resources/read"));
    b.record(Direction::In, &response(1, "from beta"));
    a.record(Direction::In, &response(1, "from alpha"));
    let stopped = kept.stop().unwrap().unwrap();
    a.record(Direction::Out, &request(2, "after/keeping"));

    assert_eq!(kept.keeping(), None);
    assert_eq!(
        (stopped.messages, stopped.dropped, stopped.full),
        (4, 0, false)
    );
    assert!(stopped.ended_ms.is_some());
    let page = kept.query(session.id, &all(session.id)).unwrap();
    let seen: Vec<_> = page
        .entries
        .iter()
        .map(|e| (e.server.as_str(), e.method.clone().unwrap(), e.paired_seq))
        .collect();
    let seqs: Vec<u64> = page.entries.iter().map(|e| e.seq).collect();
    assert_eq!(
        seen,
        [
            ("alpha", "tools/call".to_owned(), Some(seqs[3])),
            ("beta", "resources/read".to_owned(), Some(seqs[2])),
            ("beta", "resources/read".to_owned(), Some(seqs[1])),
            ("alpha", "tools/call".to_owned(), Some(seqs[0])),
        ]
    );
    assert_eq!(page.methods, ["resources/read", "tools/call"]);
    let bodies = kept.messages(session.id, &[seqs[2]]).unwrap();
    assert!(bodies[0].body.contains("from beta"));
    let lines = kept.export(session.id, &seqs).unwrap();
    assert_eq!(lines.len(), 4);
    assert!(lines[3].contains(r#""text":"from alpha""#));
}

#[test]
fn a_kept_session_is_read_with_the_live_filters_and_in_pages() {
    let (_, traffic, kept) = kept(Bounds::default());
    let session = kept.keep().unwrap().id;
    let ring = traffic.ring("alpha");
    for id in 0..10 {
        ring.record(Direction::Out, &request(id, "tools/call"));
        ring.record(Direction::In, &response(id, &format!("answer number {id}")));
    }
    traffic
        .ring("beta")
        .record(Direction::Out, &request(1, "ping"));
    kept.stop().unwrap();
    let first = kept
        .query(
            session,
            &TrafficQuery {
                limit: 3,
                ..all(session)
            },
        )
        .unwrap();
    assert_eq!(first.entries.len(), 3);
    let rest = kept
        .query(
            session,
            &TrafficQuery {
                after: first.last,
                ..all(session)
            },
        )
        .unwrap();
    assert_eq!(rest.entries.len(), 18);
    let text = kept
        .query(
            session,
            &TrafficQuery {
                text: "NUMBER 7".into(),
                ..all(session)
            },
        )
        .unwrap();
    assert_eq!(text.entries.len(), 1);
    let beta = kept
        .query(
            session,
            &TrafficQuery {
                servers: vec!["beta".into()],
                ..all(session)
            },
        )
        .unwrap();
    assert_eq!(beta.entries.len(), 1);
    let answers = kept
        .query(
            session,
            &TrafficQuery {
                direction: Some(Direction::In),
                ..all(session)
            },
        )
        .unwrap();
    assert!(answers.entries.iter().all(|e| e.direction == Direction::In));
    assert_eq!(answers.entries.len(), 10);
}

#[test]
fn a_secret_never_reaches_a_kept_session() {
    let (store, traffic, kept) = kept(Bounds::default());
    let session = kept.keep().unwrap().id;
    record_secrets(&traffic.ring("vault"));
    kept.stop().unwrap();
    let stored: Vec<String> = store
        .with(|conn| {
            let mut s =
                conn.prepare("SELECT server || entry || CAST(body AS TEXT) FROM traffic_kept")?;
            let rows = s.query_map([], |r| r.get(0))?;
            rows.collect()
        })
        .unwrap();
    assert_eq!(stored.len(), 3);
    let seqs: Vec<u64> = kept
        .query(session, &all(session))
        .unwrap()
        .entries
        .iter()
        .map(|e| e.seq)
        .collect();
    let shown = kept.export(session, &seqs).unwrap().join("\n");
    for text in stored.iter().chain([&shown]) {
        assert!(!text.contains("env-secret-value-1"), "{text}");
        assert!(!text.contains("bearer-token-abcdef"), "{text}");
    }
    assert!(shown.contains("[redacted]"));
}

#[test]
fn a_kept_session_stops_at_its_bounds_and_says_so() {
    let (_, traffic, kept) = kept(Bounds {
        messages: 3,
        bytes: 1 << 20,
    });
    let session = kept.keep().unwrap().id;
    let ring = traffic.ring("alpha");
    for id in 0..5 {
        ring.record(Direction::Out, &request(id, "ping"));
    }
    let stopped = kept.stop().unwrap().unwrap();
    assert_eq!(
        (stopped.messages, stopped.dropped, stopped.full),
        (3, 2, true)
    );
    assert_eq!(kept.query(session, &all(session)).unwrap().entries.len(), 3);
    // The next session starts with its own bounds.
    kept.keep().unwrap();
    ring.record(Direction::Out, &request(9, "ping"));
    let next = kept.stop().unwrap().unwrap();
    assert_eq!((next.messages, next.full), (1, false));
}

#[test]
fn a_session_left_open_is_closed_at_the_next_start_and_can_be_deleted() {
    let (store, traffic, kept) = kept(Bounds::default());
    let session = kept.keep().unwrap().id;
    traffic
        .ring("alpha")
        .record(Direction::Out, &request(1, "ping"));
    // The host stops without stopping the session: its tap is switched off unseen.
    kept.switch.turn_off();
    drop(kept);
    let again = Kept::start(
        store,
        &Traffic::new(TrafficLimits::default()),
        Bounds::default(),
    )
    .unwrap();
    let listed = again.sessions().unwrap();
    assert_eq!(listed.keeping, None);
    assert_eq!(listed.sessions.len(), 1);
    assert!(listed.sessions[0].ended_ms.is_some());
    assert_eq!(listed.sessions[0].messages, 1);
    again.delete(session).unwrap();
    assert!(again.sessions().unwrap().sessions.is_empty());
    assert!(again.query(session, &all(session)).is_err());
}

#[test]
fn the_session_being_kept_is_not_deleted_and_is_kept_once() {
    let (_, _, kept) = kept(Bounds::default());
    let session = kept.keep().unwrap().id;
    assert!(kept.keep().is_err());
    assert!(kept.delete(session).is_err());
    kept.stop().unwrap();
    assert_eq!(kept.stop().unwrap(), None);
    kept.delete(session).unwrap();
}
