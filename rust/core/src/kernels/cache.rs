//! A least-recently-used cache of kernel rows or columns, bounded in bytes (the
//! `cache_size` of libsvm).
//!
//! Entries are keyed by example index and may differ in length (the support-set
//! strategy extends a cached row as the support set grows). The cache never changes
//! a result: an evicted entry is recomputed with the same arithmetic.

/// No slot.
const NIL: u32 = u32::MAX;

struct Slot<S> {
    key: usize,
    data: Vec<S>,
    prev: u32,
    next: u32,
}

/// LRU cache of `Vec<S>` keyed by `0..n_keys`.
pub struct KernelCache<S> {
    slots: Vec<Slot<S>>,
    free: Vec<u32>,
    slot_of: Vec<u32>,
    /// Most recently used slot.
    head: u32,
    /// Least recently used slot.
    tail: u32,
    bytes: usize,
    budget: usize,
    hits: u64,
    misses: u64,
}

impl<S: Copy> KernelCache<S> {
    /// An empty cache for keys `0..n_keys` holding at most `budget` bytes of values.
    pub fn new(n_keys: usize, budget: usize) -> Self {
        Self {
            slots: Vec::new(),
            free: Vec::new(),
            slot_of: vec![NIL; n_keys],
            head: NIL,
            tail: NIL,
            bytes: 0,
            budget,
            hits: 0,
            misses: 0,
        }
    }

    fn size(len: usize) -> usize {
        len * std::mem::size_of::<S>()
    }

    fn unlink(&mut self, s: u32) {
        let (prev, next) = (self.slots[s as usize].prev, self.slots[s as usize].next);
        if prev == NIL {
            self.head = next;
        } else {
            self.slots[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.slots[next as usize].prev = prev;
        }
    }

    fn push_front(&mut self, s: u32) {
        self.slots[s as usize].prev = NIL;
        self.slots[s as usize].next = self.head;
        if self.head != NIL {
            self.slots[self.head as usize].prev = s;
        }
        self.head = s;
        if self.tail == NIL {
            self.tail = s;
        }
    }

    fn evict_lru(&mut self) {
        let s = self.tail;
        self.unlink(s);
        let slot = &mut self.slots[s as usize];
        self.bytes -= Self::size(slot.data.len());
        self.slot_of[slot.key] = NIL;
        slot.data = Vec::new();
        self.free.push(s);
    }

    /// Take the entry of `key` out of the cache (counted as a hit), or `None`
    /// (a miss). Give it back with [`KernelCache::put`].
    pub fn take(&mut self, key: usize) -> Option<Vec<S>> {
        let s = self.slot_of[key];
        if s == NIL {
            self.misses += 1;
            return None;
        }
        self.hits += 1;
        self.unlink(s);
        let slot = &mut self.slots[s as usize];
        self.slot_of[key] = NIL;
        self.bytes -= Self::size(slot.data.len());
        self.free.push(s);
        Some(std::mem::take(&mut slot.data))
    }

    /// Store `data` for `key` as the most recently used entry, evicting the least
    /// recently used ones to stay within the budget. Entries larger than the whole
    /// budget are dropped.
    pub fn put(&mut self, key: usize, data: Vec<S>) {
        if self.slot_of[key] != NIL {
            drop(self.take(key));
            self.hits -= 1;
        }
        let size = Self::size(data.len());
        if size > self.budget {
            return;
        }
        while self.bytes + size > self.budget && self.tail != NIL {
            self.evict_lru();
        }
        let s = if let Some(s) = self.free.pop() {
            s
        } else {
            self.slots.push(Slot {
                key,
                data: Vec::new(),
                prev: NIL,
                next: NIL,
            });
            (self.slots.len() - 1) as u32
        };
        let slot = &mut self.slots[s as usize];
        slot.key = key;
        slot.data = data;
        self.slot_of[key] = s;
        self.bytes += size;
        self.push_front(s);
    }
}

/// A [`KernelCache`] of kernel columns shared by the binary problems of a
/// one-vs-rest fit, which all read the same Gram matrix: a column computed for one
/// class serves the others. Readers get a copy, so the lock is held only while
/// copying. Every column is a pure function of the data, so which problem computed
/// it first never changes a result.
pub struct SharedColumns<S> {
    inner: std::sync::Mutex<KernelCache<S>>,
}

impl<S: Copy> SharedColumns<S> {
    /// An empty cache for columns `0..n_keys`, at most `budget` bytes.
    pub fn new(n_keys: usize, budget: usize) -> Self {
        Self {
            inner: std::sync::Mutex::new(KernelCache::new(n_keys, budget)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, KernelCache<S>> {
        // A panic while holding the lock cannot leave a column half written (puts
        // move whole vectors), so a poisoned cache is still consistent.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A copy of column `key`, if cached (marked most recently used).
    pub fn get(&self, key: usize) -> Option<Vec<S>> {
        let mut cache = self.lock();
        let col = cache.take(key)?;
        let copy = col.clone();
        cache.put(key, col);
        Some(copy)
    }

    /// Store column `key`.
    pub fn put(&self, key: usize, col: Vec<S>) {
        self.lock().put(key, col);
    }

    /// Whether a column of `n` values fits the budget at all.
    pub fn can_hold(&self, n: usize) -> bool {
        self.lock().budget >= KernelCache::<S>::size(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_within_budget() {
        let mut c = KernelCache::<f64>::new(10, 3 * 8 * 4);
        for k in 0..3 {
            c.put(k, vec![k as f64; 4]);
        }
        assert_eq!(c.bytes, 96);
        // Touch 0 so that 1 is the least recently used.
        let v = c.take(0).unwrap();
        c.put(0, v);
        c.put(3, vec![3.0; 4]);
        assert!(c.take(1).is_none());
        for k in [0, 2, 3] {
            assert_eq!(c.take(k).unwrap(), vec![k as f64; 4]);
        }
        assert_eq!(c.bytes, 0);
        // Too large for the budget: not stored.
        c.put(5, vec![0.0; 100]);
        assert!(c.take(5).is_none());
        // Replacing an entry keeps one copy.
        c.put(6, vec![1.0; 2]);
        c.put(6, vec![2.0; 3]);
        assert_eq!(c.bytes, 24);
        assert_eq!(c.take(6).unwrap(), vec![2.0; 3]);
    }

    #[test]
    fn many_random_operations_keep_the_books_straight() {
        let mut rng = crate::rng::Rng::seed_from_u64(3);
        let mut c = KernelCache::<f32>::new(50, 4 * 100);
        let mut model = std::collections::HashMap::<usize, Vec<f32>>::new();
        for _ in 0..5000 {
            let k = rng.below(50) as usize;
            if rng.below(2) == 0 {
                let v = vec![k as f32; rng.below(30) as usize];
                model.insert(k, v.clone());
                c.put(k, v);
            } else if let Some(v) = c.take(k) {
                assert_eq!(Some(&v), model.get(&k));
                c.put(k, v);
            }
            assert!(c.bytes <= 400);
        }
    }
}
