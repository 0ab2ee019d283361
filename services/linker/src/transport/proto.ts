// The generated contract. Imported by relative path because @a2a-inbound/proto only exports its
// index (another owner's file), which does not re-export the linker package yet; once it does
// (`export * as linkerV1 from '../gen/a2a_inbound/linker/v1/linker'`), import it from there.
export * as linkerV1 from '../../../../proto/gen/a2a_inbound/linker/v1/linker';
