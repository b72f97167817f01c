//! Building usage parameter control (ITU-T I.371 GCRA, `connections[].upc`) from a connection's
//! contract.

use crate::policing::{GcraForm, ScrStream, Upc, UpcAction};
use crate::scenario::{ConnectionSpec, GcraFormSpec, UpcActionSpec};

pub(crate) fn upc_of(c: &ConnectionSpec) -> Option<Box<Upc>> {
    let (k, u) = (c.contract.as_ref()?, c.upc.as_ref()?);
    let action = |a: UpcActionSpec| match a {
        UpcActionSpec::Discard => UpcAction::Discard,
        UpcActionSpec::Tag => UpcAction::Tag,
    };
    let form = match u.form {
        GcraFormSpec::LeakyBucket => GcraForm::LeakyBucket,
        GcraFormSpec::VirtualScheduling => GcraForm::VirtualScheduling,
    };
    let stream = if u.scr_clp0_only {
        ScrStream::Clp0
    } else {
        ScrStream::Clp0Plus1
    };
    Some(Box::new(Upc::from_contract(
        &k.contract(),
        form,
        action(u.pcr_action),
        action(u.scr_action),
        stream,
    )))
}
