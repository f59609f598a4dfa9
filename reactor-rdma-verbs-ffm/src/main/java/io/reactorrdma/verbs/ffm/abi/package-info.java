/**
 * The binary interface of rdma-core as the FFM provider sees it: the layouts of the structs it reads
 * and writes ({@link io.reactorrdma.verbs.ffm.abi.WorkRequestLayouts}, {@link io.reactorrdma.verbs.ffm.abi.ResourceLayouts},
 * {@link io.reactorrdma.verbs.ffm.abi.AttributeLayouts}, {@link io.reactorrdma.verbs.ffm.abi.CmLayouts}) and the enum
 * values it passes ({@link io.reactorrdma.verbs.ffm.abi.VerbsConstants}), for LP64 Linux (x86-64, aarch64). Each is
 * declared once, under its C name, and checked field by field against rdma-core's headers by a C probe in the
 * tests.
 */
package io.reactorrdma.verbs.ffm.abi;
