// The labels Arbiter puts on candidates: one name each, shared by the planners and the handlers.
export const LABEL_LOST = 'arbiter:lost';
export const LABEL_AWAITING = 'arbiter:awaiting-approval';
