package io.reactorrdma.verbs.ffm.abi;

import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every struct layout and constant of this package against rdma-core's headers: a C probe
 * ({@code src/test/c/abi_probe.c}), compiled here with gcc, prints {@code sizeof}, {@code offsetof} and enum
 * values; each field the Java layouts name must sit at the probe's offset with the probe's size, and each field
 * the probe prints must be named by a layout. Needs gcc and rdma-core's development headers
 * ({@code libibverbs-dev}, {@code librdmacm-dev}; {@code .ci/run} installs them): without them it is skipped,
 * saying so.
 */
class AbiLayoutTest {

    private static final Path PROBE_SOURCE = Paths.get("src", "test", "c", "abi_probe.c");
    private static final List<Class<?>> LAYOUT_CLASSES =
            List.of(WorkRequestLayouts.class, ResourceLayouts.class, AttributeLayouts.class, CmLayouts.class);

    /** Struct name -> its size, from the probe. */
    private static final Map<String, Long> SIZES = new TreeMap<>();
    /** Struct name -> (field path -> "offset size"), from the probe. */
    private static final Map<String, Map<String, String>> FIELDS = new TreeMap<>();
    /** Constant name -> value, from the probe. */
    private static final Map<String, Long> CONSTANTS = new TreeMap<>();

    @BeforeAll
    static void runProbe() throws IOException, InterruptedException {
        EmulatedRdmaCore.assumeBuildable();
        Path binary = Paths.get("target", "abi-probe");
        Files.createDirectories(binary.getParent());
        run(List.of("gcc", "-Wall", "-Werror", "-o", binary.toString(), PROBE_SOURCE.toString()));
        for (String line : run(List.of(binary.toString()))) {
            String[] f = line.split(" ");
            switch (f[0]) {
                case "S" -> SIZES.put(f[1], Long.parseLong(f[2]));
                case "F" -> FIELDS.computeIfAbsent(f[1], k -> new TreeMap<>()).put(f[2], f[3] + " " + f[4]);
                case "C" -> CONSTANTS.put(f[1], Long.parseLong(f[2]));
                default -> throw new AssertionError("the probe printed an unknown line: " + line);
            }
        }
    }

    @Test
    void everyStructHasTheHeadersSize() throws IllegalAccessException {
        Map<String, Long> javaSizes = new TreeMap<>();
        for (GroupLayout g : layouts()) {
            javaSizes.put(g.name().orElseThrow(), g.byteSize());
        }
        assertThat(javaSizes).isEqualTo(SIZES);
    }

    @Test
    void everyFieldSitsWhereTheHeadersPutIt() throws IllegalAccessException {
        for (GroupLayout g : layouts()) {
            String name = g.name().orElseThrow();
            Map<String, String> javaFields = new TreeMap<>();
            leaves(g, "", 0, javaFields);
            assertThat(javaFields).as("%s: field -> offset size (Java layout against the probe)", name)
                    .isEqualTo(FIELDS.get(name));
        }
    }

    @Test
    void everyConstantHasTheHeadersValue() throws IllegalAccessException {
        Map<String, Long> javaConstants = new TreeMap<>();
        for (Field f : VerbsConstants.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                javaConstants.put(f.getName(), (long) f.getInt(null));
            }
        }
        assertThat(javaConstants).isEqualTo(CONSTANTS);
    }

    @Test
    void theDataPathIsCalledThroughTheContextsOperationTable() {
        // ibv_post_send, ibv_post_recv, ibv_poll_cq and ibv_req_notify_cq are inline in verbs.h: the provider calls
        // the function pointers at these offsets of struct ibv_context, as that inline code does.
        Map<String, String> context = FIELDS.get("ibv_context");
        for (String op : List.of("post_send", "post_recv", "poll_cq", "req_notify_cq")) {
            long offset = ResourceLayouts.IBV_CONTEXT.byteOffset(MemoryLayout.PathElement.groupElement("ops"),
                    MemoryLayout.PathElement.groupElement(op));
            assertThat(context.get("ops." + op)).isEqualTo(offset + " 8");
        }
    }

    /** The public struct and union layouts of the layout classes. */
    private static List<GroupLayout> layouts() throws IllegalAccessException {
        List<GroupLayout> all = new ArrayList<>();
        for (Class<?> c : LAYOUT_CLASSES) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isPublic(f.getModifiers()) && Modifier.isStatic(f.getModifiers())
                        && GroupLayout.class.isAssignableFrom(f.getType())) {
                    all.add((GroupLayout) f.get(null));
                }
            }
        }
        return all;
    }

    /** Every named member that is not itself a struct or union: its dotted path -> "offset size". */
    private static void leaves(GroupLayout g, String prefix, long base, Map<String, String> out) {
        long offset = base;
        for (MemoryLayout m : g.memberLayouts()) {
            long at = g instanceof StructLayout ? offset : base;
            if (m.name().isPresent()) {
                String path = prefix + m.name().get();
                if (m instanceof GroupLayout inner) {
                    leaves(inner, path + ".", at, out);
                } else {
                    out.put(path, at + " " + m.byteSize());
                }
            }
            offset += m.byteSize();
        }
    }

    private static List<String> run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finished", command).isTrue();
        assertThat(p.exitValue()).as("%s: %s", command, lines).isZero();
        return lines;
    }
}
