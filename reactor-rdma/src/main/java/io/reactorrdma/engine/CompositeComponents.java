package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Reads a {@link CompositeByteBuf}'s pieces where Netty keeps them, so that gathering a frame
 * allocates nothing. Netty's public way to a piece, {@code internalComponent(i)}, slices a piece
 * that does not span its whole buffer the first time it is asked (RSocket's frame header, a few
 * bytes written into a 256-byte buffer: ~55 B per frame). Here a piece is its buffer (unwrapped by
 * Netty when added), the composite's bytes {@code [offset, endOffset)} of it, and the adjustment
 * from a composite index to the buffer's index — Netty's private fields, read through method handles.
 *
 * <p>{@link #AVAILABLE} is false when this Netty does not have those fields (another version);
 * {@link PayloadGather} then takes {@code internalComponent}, as before.
 */
final class CompositeComponents {

    /** Whether the fields were found; nothing else here may be called when false. */
    static final boolean AVAILABLE;
    private static final MethodHandle COMPONENTS; // (CompositeByteBuf) Object[]
    private static final MethodHandle BUF;        // (Object) ByteBuf
    private static final MethodHandle ADJUSTMENT; // (Object) int
    private static final MethodHandle END_OFFSET; // (Object) int

    static {
        MethodHandle components = null;
        MethodHandle buf = null;
        MethodHandle adjustment = null;
        MethodHandle endOffset = null;
        boolean ok;
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(CompositeByteBuf.class, MethodHandles.lookup());
            Class<?> component = Class.forName(CompositeByteBuf.class.getName() + "$Component", false,
                    CompositeByteBuf.class.getClassLoader());
            components = lookup.findGetter(CompositeByteBuf.class, "components", component.arrayType())
                    .asType(MethodType.methodType(Object[].class, CompositeByteBuf.class));
            buf = lookup.findGetter(component, "buf", ByteBuf.class).asType(MethodType.methodType(ByteBuf.class, Object.class));
            adjustment = lookup.findGetter(component, "adjustment", int.class).asType(MethodType.methodType(int.class, Object.class));
            endOffset = lookup.findGetter(component, "endOffset", int.class).asType(MethodType.methodType(int.class, Object.class));
            ok = true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            ok = false; // another Netty, or a module that does not open io.netty.buffer: the slicing path
        }
        AVAILABLE = ok;
        COMPONENTS = components;
        BUF = buf;
        ADJUSTMENT = adjustment;
        END_OFFSET = endOffset;
    }

    private CompositeComponents() {
    }

    /** The composite's component array (longer than its component count; index it with {@code toComponentIndex}). */
    static Object[] of(CompositeByteBuf c) {
        CompositeByteBuf real = c;
        for (int depth = 0; depth < 4; depth++) {
            ByteBuf inner = real.unwrap(); // a leak detector's wrapper keeps no components of its own
            if (!(inner instanceof CompositeByteBuf)) {
                break;
            }
            real = (CompositeByteBuf) inner;
        }
        try {
            return (Object[]) COMPONENTS.invokeExact(real);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot read the components of " + c, t);
        }
    }

    /** The buffer a component reads from (Netty unwrapped slices, duplicates and leak wrappers when it was added). */
    static ByteBuf buf(Object component) {
        try {
            return (ByteBuf) BUF.invokeExact(component);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot read a composite's component", t);
        }
    }

    /** Add to a composite index in this component to get the index in {@link #buf}. */
    static int adjustment(Object component) {
        try {
            return (int) ADJUSTMENT.invokeExact(component);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot read a composite's component", t);
        }
    }

    /** The composite index just past this component. */
    static int endOffset(Object component) {
        try {
            return (int) END_OFFSET.invokeExact(component);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot read a composite's component", t);
        }
    }
}
